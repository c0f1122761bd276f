#!/usr/bin/env bash
# Live-capture benchmark for rewind-lsp.
#
# Builds the binary and bench/live (a small LSP client on testkit's
# connection), commits a copy of $(go env GOROOT)/src (or -tree DIR) into a fresh
# git repository in a temporary folder, starts `rewind-lsp` as a language
# server on it (store outside the tree), waits for its first capture
# (watchMode "watch"), and measures, median of N turns, each turn being a
# turn start, then 10 changed files (8 modified, 1 added, 1 deleted;
# different files every turn), then a turn end:
#   (1)  rewind.turnEnd in the running server: from writing the request to
#        reading its reply (and, beside it, rewind.turnStart)
#   (2)  `rewind-lsp --root T --store S turn end` from the command line
#        while the server runs (forwarded over the store's socket, so the
#        process start is included); the turn is opened with `turn start`
#        from the command line too
# Each turn starts from an idle server (the driver waits until the server
# used < 1 ms of CPU in 100 ms: the previous turn's GC and delayed stat-cache
# save are over). Right after each turn's end, on the same tree and change:
#   (b)  pi-rewind's capture: fresh temporary GIT_INDEX_FILE, git add -A,
#        git write-tree, git commit-tree
#   (c)  the same with a temporary index kept between captures
#   (d)  git status --porcelain
# plus the server's resident memory (VmRSS) and its CPU (utime+stime from
# /proc/PID/stat, and the summed schedstat of its threads) over an idle
# window after the first capture and again after the turns.
#
# usage: bench/live.sh [-n N] [-big | -big-only] [-tree DIR] [-idle S] [-bin PATH] [-keep]
#   -n N       timed turns of each kind (default 5; one warm-up turn each before)
#   -big       after the ~10k-file tree, also a ~80k-file one (GOROOT/src, or
#              -tree, copied k times into subfolders); the table shows both
#   -big-only  only the ~80k-file tree
#   -tree DIR  benchmark a copy of DIR (its .git folders left out) instead of GOROOT/src
#   -idle S    length of each idle window (default 10 s)
#   -bin PATH  use this rewind-lsp binary instead of building one
#   -keep      keep the temporary folder (printed) for inspection
#
# Everything happens in one temporary folder, removed on exit (the server
# is stopped first). git runs with HOME pointing into it and
# GIT_CONFIG_NOSYSTEM=1; automatic gc is off (-c gc.auto=0).
set -euo pipefail
export LC_ALL=C

ORIG_ARGS=("$@")
n=5 tree_src="" sizes=(small) bin="" keep=0 idle=10
while [ $# -gt 0 ]; do
	case $1 in
	-n | --n) n=$2; shift 2 ;;
	-big | --big) sizes=(small big); shift ;;
	-big-only | --big-only) sizes=(big); shift ;;
	-tree | --tree) tree_src=$2; shift 2 ;;
	-idle | --idle) idle=$2; shift 2 ;;
	-bin | --bin) bin=$2; shift 2 ;;
	-keep | --keep) keep=1; shift ;;
	-h | -help | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "live.sh: unknown argument $1 (see -help)" >&2; exit 2 ;;
	esac
done
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "live.sh: -n wants a positive number" >&2; exit 2; }
[[ $idle =~ ^[1-9][0-9]*$ ]] || { echo "live.sh: -idle wants a positive number of seconds" >&2; exit 2; }

repo=$(cd "$(dirname "$0")/.." && pwd)
for tool in git go awk sort du tar find; do
	command -v "$tool" >/dev/null || { echo "live.sh: $tool is required (apt-get install git golang / see README)" >&2; exit 1; }
done
[ -r /proc/self/schedstat ] || { echo "live.sh: needs Linux /proc (schedstat)" >&2; exit 1; }

BENCH_NAME=live.sh
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
make_tmp live
DPID="" DRV_IN="" DRV_OUT=""
stop_driver() { # quit the server through the driver, then make sure the driver is gone
	if [ -n "$DPID" ]; then
		{ echo quit >&"$DRV_IN"; } 2>/dev/null || true
		local i
		for i in $(seq 1 100); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
		kill "$DPID" 2>/dev/null || true # the driver kills its server when its stdin closes
		wait "$DPID" 2>/dev/null || true
		DPID=""
	fi
}
before_cleanup() { stop_driver; }

# ---------------------------------------------------------------- helpers
ms2() { awk -v u="$1" 'BEGIN{if(u=="")print "-"; else printf "%.2f", u/1000}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{if(a==""||b=="")print "-"; else if(b>0)printf "%.1f", a/b; else print "inf"}'; }
# check VALUE OP LIMIT -> ok / MISSED
check() { awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN{if(v==""||v=="-"){print "-";exit} ok=(op=="<=")?(v<=l):(op=="<")?(v<l):(v>=l); print ok?"ok":"MISSED"}'; }

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1
real_home=$(getent passwd "$(id -u)" | cut -d: -f6 || true)
mkdir -p "$HOME"
unset XDG_CONFIG_HOME GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY REWIND_LSP_HOME || true
G=(git -c user.name=rewind-bench -c user.email=bench@rewind-lsp.invalid -c gc.auto=0 -c maintenance.auto=false)
gohome=(env HOME="${real_home:-$HOME}")

# ---------------------------------------------------------------- build
# The server is what is measured: unlike capture.sh there is no stub
# fallback for lsp/.
mkdir -p "$TMP/bin"
if [ -z "$bin" ]; then
	bin="$TMP/bin/rewind-lsp"
	say "building rewind-lsp …"
	(cd "$repo" && "${gohome[@]}" CGO_ENABLED=0 go build -trimpath -o "$bin" ./cmd/rewind-lsp) || { say "live.sh: build failed"; exit 1; }
fi
[ -x "$bin" ] || { say "live.sh: no binary at $bin"; exit 1; }
drv="$TMP/bin/live"
(cd "$repo" && "${gohome[@]}" go build -o "$drv" ./bench/live) || { say "live.sh: building bench/live failed"; exit 1; }
goroot=$("${gohome[@]}" go env GOROOT)
[ -n "$tree_src" ] || tree_src="$goroot/src"
[ -d "$tree_src" ] || { say "live.sh: no folder $tree_src"; exit 1; }
tree_src=$(cd "$tree_src" && pwd)
max_watches=$(cat /proc/sys/fs/inotify/max_user_watches 2>/dev/null || echo "?")
max_instances=$(cat /proc/sys/fs/inotify/max_user_instances 2>/dev/null || echo "?")
clk_tck=$(getconf CLK_TCK 2>/dev/null || echo 100)

# ---------------------------------------------------------------- driver
# The driver (bench/live) runs as a coprocess: one command line in, one
# reply line out (see bench/live/main.go).
drv_start() { # drv_start TREE STORE LOG
	# REWIND_LSP_TRACE=1: the server prints the phases of each turn end on its
	# stderr (LOG.server); trace_since reads them back.
	coproc DRV { REWIND_LSP_TRACE=1 exec "$drv" -bin "$bin" -root "$1" -store "$2" -quiet 3000 -log "$3.server" 2>"$3"; }
	DRV_OUT=${DRV[0]} DRV_IN=${DRV[1]} DPID=$DRV_PID # bash unsets these once the coprocess is gone
}
ask() { # ask COMMAND... : REPLY = the driver's answer (abort on error)
	echo "$*" >&"$DRV_IN"
	if ! read -r -t 1800 -u "$DRV_OUT" REPLY; then
		say "live.sh: no answer from the driver to '$*'"; cat "$LOG" >&2; exit 1
	fi
	case $REPLY in error*) say "live.sh: driver: $* -> $REPLY"; cat "$LOG" >&2; exit 1 ;; esac
}

# ---------------------------------------------------------------- trees
copies=$(copies_for "$tree_src")

build_tree_kind() { # build_tree_kind small|big : a fresh, committed, packed repository in $TREE
	if [ "$1" = big ]; then
		say "[$1] copying $tree_src $copies times and committing it into a fresh git repository …"
		build_tree "$TREE" "$tree_src" "$copies"
	else
		say "[$1] copying $tree_src and committing it into a fresh git repository …"
		build_tree "$TREE" "$tree_src"
	fi
}

# Files to change: tracked regular files of 200 B – 256 KiB in a fixed
# pseudo-random order. Change k modifies 8, deletes 1 and adds 1 (a copy
# of another file plus a unique line): 10 changed files.
check_pool() {
	make_pool "$TREE"
	local need=$(((2 * (n + 1)) * 10))
	[ "${#pool[@]}" -ge "$need" ] || { say "live.sh: the tree has too few files to change (${#pool[@]} < $need)"; exit 1; }
}
apply_change() { # apply_change K
	local k=$1 base=$(($1 * 9)) j src dst
	for j in 0 1 2 3 4 5 6 7; do
		printf '\n// rewind-lsp live bench: change %d edit %d\n' "$k" "$j" >>"$TREE/${pool[base + j]}"
	done
	rm -f -- "$TREE/${pool[base + 8]}"
	src=${pool[${#pool[@]} - 1 - k]}
	dst="$(dirname -- "${pool[base]}")/bench_added_${k}_$(basename -- "$src")"
	{ cat -- "$TREE/$src"; printf '\n// rewind-lsp live bench: added by change %d\n' "$k"; } >"$TREE/$dst"
}

# ---------------------------------------------------------------- methods
b_capture() { rm -f "$TMP/fresh-index"; git_capture "$TREE" "$TMP/fresh-index"; }
c_capture() { git_capture "$TREE" "$TMP/kept-index"; }
d_status() { "${G[@]}" -C "$TREE" status --porcelain; }
cli() { "$bin" --root "$TREE" --store "$STORE" --json "$@"; }
srv_cpu() { ask cpu; REPLY=${REPLY#* }; } # µs, summed schedstat of the server's threads

git_methods() { # git_methods ROTATION : b, c and d in a rotating order; sets tb tc td (+ _cpu)
	local methods=(b c d) j m
	for j in 0 1 2; do
		m=${methods[($1 + j) % 3]}
		case $m in
		b) timed tb b_capture ;;
		c) timed tc c_capture ;;
		d) timed td d_status ;;
		esac
	done
}

# trace_since OFFSET : REPLY = "settle read trees lock capture changes total" in µs,
# from the server's trace lines written after byte OFFSET of its log (the last
# settle and "capture changed" before the "turn end" line belong to it).
trace_since() {
	REPLY=$(tail -c +$(($1 + 1)) "$LOG.server" | awk '
		function us(x) { sub(/ms$/, "", x); return int(x * 1000 + 0.5) }
		/rewind-lsp trace: settle / { settle = us($4) }
		/rewind-lsp trace: capture changed / {
			for (i = 1; i <= NF; i++) {
				if ($i == "read") rd = us($(i + 1))
				if ($i == "trees") tr = us($(i + 1))
			}
		}
		/rewind-lsp trace: turn end / {
			tot = us($5)
			for (i = 6; i <= NF; i++) {
				if ($i == "journal") lk = us($(i + 1))
				if ($i == "capture") cp = us($(i + 1))
				if ($i == "append") ch = us($(i + 1))
			}
			found = 1
		}
		END { if (found) printf "%d %d %d %d %d %d %d", settle, rd, tr, lk, cp, ch, tot }')
	[ -n "$REPLY" ] || REPLY="- - - - - - -"
}

# idle_window : ticks and µs of server CPU over $idle seconds of nothing.
idle_window() {
	local t0 u0 t1 u1
	ask cpu; read -r t0 u0 <<<"$REPLY"
	sleep "$idle"
	ask cpu; read -r t1 u1 <<<"$REPLY"
	IDLE_TICKS=$((t1 - t0)) IDLE_US=$((u1 - u0))
}

declare -A R # results: R[size,key]

measure() { # measure small|big
	local sz=$1 it k r line label
	TREE="$TMP/tree-$sz" STORE="$TMP/store-$sz" LOG="$TMP/driver-$sz.log"
	build_tree_kind "$sz"
	check_pool
	R[$sz,files]=$("${G[@]}" -C "$TREE" ls-files | wc -l)
	R[$sz,dirs]=$(find "$TREE" -name .git -prune -o -type d -print | wc -l)
	R[$sz,mb]=$(du -sm --exclude=.git "$TREE" | awk '{print $1}')
	R[$sz,load_before]=$(uptime)
	run env GIT_INDEX_FILE="$TMP/kept-index" "${G[@]}" -C "$TREE" add -A # (c) starts warm

	say "[$sz] starting the server; first capture into an empty store …"
	drv_start "$TREE" "$STORE" "$LOG"
	ask init
	ask ready 1800
	read -r mode waited _ <<<"$REPLY"
	R[$sz,mode]=$mode R[$sz,first_ms]=$waited
	if [ "$mode" != watch ]; then
		R[$sz,why]=$(grep -m1 -o 'file notifications are unavailable.*' "$LOG" || echo "(no reason logged)")
		say "[$sz] the server polls instead of watching: ${R[$sz,why]}"
	fi
	ask pid; R[$sz,pid]=$REPLY
	sleep 3 # let the first capture's after-work (cache save, GC) finish
	ask rss; R[$sz,rss_first]=$REPLY
	R[$sz,obj_first]=$(du -sb "$STORE/objects" | awk '{print $1}')
	say "[$sz] idle ${idle}s after the first capture (RSS $((REPLY / 1024)) MB) …"
	idle_window; R[$sz,idle1_ticks]=$IDLE_TICKS R[$sz,idle1_us]=$IDLE_US

	local XS=() XR=() XT=() XL=() XC=() XH=() XE=() YE=() off x_set x_rd x_tr x_lk x_cp x_ch x_tot y_tot
	local PV=() PVc=() L=() Lc=() Lcap=() S=() Sc=() C=() Cc=() Cs=() CS=() B=() Bc=() GC=() GCc=() D=() Dc=()
	local ta ta_srv tcap ts ts_srv turn nch c0 c1 cs cs_cpu
	: >"$TMP/samples-$sz"
	k=0
	for it in $(seq 0 "$n"); do
		label="turn $it/$n"; [ "$it" = 0 ] && label="warm-up turn (not counted)"
		# (1) through LSP
		say "[$sz] $label: (1) rewind.turnStart, change, rewind.turnEnd; then b, c, d …"
		ask quiet # start from an idle server (no GC or delayed save of the previous turn running)
		ask start; read -r ts ts_srv turn <<<"$REPLY"
		apply_change "$k"; k=$((k + 1))
		off=$(stat -c %s "$LOG.server")
		ask end; read -r ta ta_srv turn nch tcap <<<"$REPLY"
		trace_since "$off"; read -r x_set x_rd x_tr x_lk x_cp x_ch x_tot <<<"$REPLY"
		[ "$nch" = 10 ] || say "[$sz] warning: turn $turn recorded $nch changed files, not 10"
		git_methods "$it"
		if [ "$it" -gt 0 ]; then
			[ "$x_tot" = - ] || { XS+=("$x_set") XR+=("$x_rd") XT+=("$x_tr") XL+=("$x_lk") XC+=("$x_cp") XH+=("$x_ch") XE+=("$x_tot"); }
			L+=("$ta") Lc+=("$ta_srv") Lcap+=("$(awk -v m="$tcap" 'BEGIN{printf "%d", m*1000}')") S+=("$ts")
			B+=("$tb") Bc+=("$tb_cpu") GC+=("$tc") GCc+=("$tc_cpu") D+=("$td") Dc+=("$td_cpu")
			printf '  #%-2s (1) end %7s (server cpu %6s, capture %6s)  start %7s   b %8s (%7s)  c %7s (%6s)  d %7s (%6s)\n' "$it" \
				"$(ms "$ta")" "$(ms "$ta_srv")" "$tcap" "$(ms "$ts")" "$(ms "$tb")" "$(ms "$tb_cpu")" \
				"$(ms "$tc")" "$(ms "$tc_cpu")" "$(ms "$td")" "$(ms "$td_cpu")" >>"$TMP/samples-$sz"
			[ "$x_tot" = - ] || printf '      (1) trace: settle %s, read %s, trees %s | lock+journal %s, capture %s, changes+append %s = turn end %s\n' \
				"$(ms "$x_set")" "$(ms "$x_rd")" "$(ms "$x_tr")" "$(ms "$x_lk")" "$(ms "$x_cp")" "$(ms "$x_ch")" "$(ms "$x_tot")" >>"$TMP/samples-$sz"
		fi
		# (2) through the command line, forwarded to the server
		say "[$sz] $label: (2) rewind-lsp turn start, change, rewind-lsp turn end; then b, c, d …"
		ask quiet
		timed cs cli turn start --prompt p
		apply_change "$k"; k=$((k + 1))
		srv_cpu; c0=$REPLY
		off=$(stat -c %s "$LOG.server")
		timed tl cli turn end
		srv_cpu; c1=$REPLY
		trace_since "$off"; read -r _ _ _ _ _ _ y_tot <<<"$REPLY"
		nch=$(grep -c '"path"' "$TMP/out" || true)
		[ "$nch" = 10 ] || say "[$sz] warning: command-line turn end recorded $nch changed files, not 10"
		[ $((c1 - c0)) -gt 100 ] || say "[$sz] warning: the server used no CPU for 'turn end': was it forwarded?"
		timed tv "$bin" version # a process start alone, for reference
		git_methods $((it + 1))
		if [ "$it" -gt 0 ]; then
			[ "$y_tot" = - ] || YE+=("$y_tot")
			C+=("$tl") Cc+=("$tl_cpu") Cs+=($((c1 - c0))) CS+=("$cs") PV+=("$tv") PVc+=("$tv_cpu")
			B+=("$tb") Bc+=("$tb_cpu") GC+=("$tc") GCc+=("$tc_cpu") D+=("$td") Dc+=("$td_cpu")
			printf '      (2) end %7s (cli cpu %6s, server cpu %6s)   start %7s   b %8s (%7s)  c %7s (%6s)  d %7s (%6s)\n' \
				"$(ms "$tl")" "$(ms "$tl_cpu")" "$(ms $((c1 - c0)))" "$(ms "$cs")" "$(ms "$tb")" "$(ms "$tb_cpu")" \
				"$(ms "$tc")" "$(ms "$tc_cpu")" "$(ms "$td")" "$(ms "$td_cpu")" >>"$TMP/samples-$sz"
		fi
	done
	R[$sz,L]=$(median "${L[@]}") R[$sz,Lc]=$(median "${Lc[@]}") R[$sz,Lcap]=$(median "${Lcap[@]}") R[$sz,S]=$(median "${S[@]}")
	R[$sz,C]=$(median "${C[@]}") R[$sz,Cc]=$(median "${Cc[@]}") R[$sz,Cs]=$(median "${Cs[@]}") R[$sz,CS]=$(median "${CS[@]}")
	R[$sz,B]=$(median "${B[@]}") R[$sz,Bc]=$(median "${Bc[@]}") R[$sz,GC]=$(median "${GC[@]}") R[$sz,GCc]=$(median "${GCc[@]}")
	R[$sz,D]=$(median "${D[@]}") R[$sz,Dc]=$(median "${Dc[@]}")
	R[$sz,PV]=$(median "${PV[@]}") R[$sz,PVc]=$(median "${PVc[@]}")
	if [ "${#XE[@]}" -gt 0 ]; then
		R[$sz,XS]=$(median "${XS[@]}") R[$sz,XR]=$(median "${XR[@]}") R[$sz,XT]=$(median "${XT[@]}")
		R[$sz,XL]=$(median "${XL[@]}") R[$sz,XC]=$(median "${XC[@]}") R[$sz,XH]=$(median "${XH[@]}") R[$sz,XE]=$(median "${XE[@]}")
	fi
	[ "${#YE[@]}" -eq 0 ] || R[$sz,YE]=$(median "${YE[@]}")

	say "[$sz] idle ${idle}s after the turns …"
	sleep 5 # past the 3 s quiet period and the 2 s delayed stat-cache save
	ask rss; R[$sz,rss_after]=$REPLY
	R[$sz,obj_after]=$(du -sb "$STORE/objects" | awk '{print $1}')
	R[$sz,packs]=$(find "$STORE/objects/packs" -name 'pack-*.pack' | wc -l)
	R[$sz,turns]=$((2 * (n + 1)))
	idle_window; R[$sz,idle2_ticks]=$IDLE_TICKS R[$sz,idle2_us]=$IDLE_US
	stop_driver
	R[$sz,load_after]=$(uptime)
	rm -rf "$TREE" "$STORE" "$TMP/kept-index" "$TMP/fresh-index"
}

for sz in "${sizes[@]}"; do measure "$sz"; done

# ---------------------------------------------------------------- report
name() { awk -v f="${R[$1,files]}" 'BEGIN{printf (f < 10000 ? "%.1fk" : "%.0fk"), f/1000}'; } # a tree by its file count
row() { # label, then a value pair per size
	local label=$1; shift
	printf '%-66s' "$label"
	while [ $# -gt 0 ]; do printf ' %9s %9s' "$1" "$2"; shift 2; done
	printf '\n'
}
vals() { # vals WALLKEY CPUKEY [fmt] : pairs for each size
	local sz out=()
	for sz in "${sizes[@]}"; do
		if [ -n "$1" ]; then out+=("$(${3:-ms} "${R[$sz,$1]}")"); else out+=(""); fi
		if [ -n "$2" ]; then out+=("$(ms "${R[$sz,$2]}")"); else out+=(""); fi
	done
	printf '%s\n' "${out[@]}"
}
mapv() { mapfile -t V < <(vals "$@"); }
last=${sizes[${#sizes[@]} - 1]}
first=${sizes[0]}
{
echo
echo "rewind-lsp live capture benchmark — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "command:  bench/live.sh${ORIG_ARGS[*]+ ${ORIG_ARGS[*]}}"
for sz in "${sizes[@]}"; do
	what="copy of $tree_src"; [ "$sz" = big ] && what="$copies copies of $tree_src"
	echo "tree $(name "$sz"):  $what — ${R[$sz,files]} files, ${R[$sz,dirs]} folders, ${R[$sz,mb]} MB, fresh git repository (packed)"
done
echo "machine:  $(nproc) cores, $(uname -sr), $(git --version | cut -d' ' -f3- | sed 's/^/git /'), $("$bin" version 2>/dev/null || echo 'rewind-lsp ?'), $("${gohome[@]}" go version | cut -d' ' -f3)"
echo "inotify:  fs.inotify.max_user_watches = $max_watches, max_user_instances = $max_instances (the server watches one per folder)"
for sz in "${sizes[@]}"; do
	m="watchMode \"${R[$sz,mode]}\""
	[ "${R[$sz,mode]}" = watch ] || m="$m — POLLING: ${R[$sz,why]}"
	echo "server $(name "$sz"): $m; first capture (empty store) ready after $(awk -v m="${R[$sz,first_ms]}" 'BEGIN{printf "%.1f", m/1000}') s"
done
for sz in "${sizes[@]}"; do
	echo "uptime $(name "$sz"): before: ${R[$sz,load_before]}"
	echo "             after:  ${R[$sz,load_after]}"
done
echo "run:      $((SECONDS / 60)) min $((SECONDS % 60)) s in all (trees, git, server, idle windows)"
echo "turns:    median of $n of each kind (after 1 warm-up), each from an idle server: turn start, 10 changed files"
echo "          (8 modified, 1 added, 1 deleted; new files every turn), turn end at once; then"
echo "          b, c, d on that same tree and change (their order rotates)"
echo "cpu:      (1) the server's CPU during the request (schedstat of its threads); (2) the"
echo "          command-line process's CPU + the server's; b, c, d: git's processes (bash times)"
echo
hdr=()
for sz in "${sizes[@]}"; do hdr+=("$(name "$sz") wall" "cpu"); done
row "median (ms)" "${hdr[@]}"
mapv L Lc ms2; row "(1)  rewind.turnEnd, running server (request -> reply)" "${V[@]}"
mapv Lcap "" ms2; row "       of which the capture (rewind.status lastCaptureMs)" "${V[@]}"
if [ -n "${R[$first,XE]:-}" ]; then
	mapv XE "" ms2; row "       server trace (REWIND_LSP_TRACE), median of each phase: turn end" "${V[@]}"
	mapv XL "" ms2; row "         journal lock + history read" "${V[@]}"
	mapv XS "" ms2; row "         settle (watcher catches up: sentinel round trip)" "${V[@]}"
	mapv XR "" ms2; row "         changed paths: stat, read, hash, compress, store" "${V[@]}"
	mapv XT "" ms2; row "         trees: rehash dirty folders, store them" "${V[@]}"
	mapv XH "" ms2; row "         changes (tree diff, line counts) + journal append" "${V[@]}"
fi
mapv S "" ms2; row "     rewind.turnStart, running server" "${V[@]}"
mapv C Cc ms2; row "(2)  rewind-lsp turn end, command line -> server (cpu: cli)" "${V[@]}"
mapv "" Cs ms2; row "       the same, the server's cpu" "${V[@]}"
if [ -n "${R[$first,YE]:-}" ]; then
	mapv YE "" ms2; row "       of which the server's turn end (trace)" "${V[@]}"
fi
mapv CS "" ms2; row "     rewind-lsp turn start, command line -> server" "${V[@]}"
mapv PV PVc ms2; row "     rewind-lsp version: a process start alone, for reference" "${V[@]}"
mapv B Bc; row "(b)  pi-rewind: fresh temp index; add -A, write-tree, commit-tree" "${V[@]}"
mapv GC GCc; row "(c)  the same, temporary index kept between captures" "${V[@]}"
mapv D Dc; row "(d)  git status --porcelain" "${V[@]}"
echo
hdr=()
for sz in "${sizes[@]}"; do hdr+=("$(name "$sz")" ""); done
row "server process" "${hdr[@]}"
v=(); for sz in "${sizes[@]}"; do v+=("$((R[$sz,rss_first] / 1024)) MB" ""); done
row "VmRSS, idle after the first capture" "${v[@]}"
v=(); for sz in "${sizes[@]}"; do v+=("$((R[$sz,rss_after] / 1024)) MB" ""); done
row "VmRSS, idle after the turns" "${v[@]}"
v=(); for sz in "${sizes[@]}"; do v+=("${R[$sz,idle1_ticks]} ticks" "$(ms2 "${R[$sz,idle1_us]}") ms"); done
row "CPU in ${idle} s idle after the first capture (utime+stime; schedstat)" "${v[@]}"
v=(); for sz in "${sizes[@]}"; do v+=("${R[$sz,idle2_ticks]} ticks" "$(ms2 "${R[$sz,idle2_us]}") ms"); done
row "CPU in ${idle} s idle after the turns" "${v[@]}"
echo "(1 tick = $((1000 / clk_tck)) ms)"
v=(); for sz in "${sizes[@]}"; do v+=("$((R[$sz,obj_first] / 1048576)) MB" ""); done
row "store: objects after the first capture (packs)" "${v[@]}"
v=(); for sz in "${sizes[@]}"; do v+=("$(((R[$sz,obj_after] - R[$sz,obj_first]) / R[$sz,turns])) B" ""); done
row "store: growth per turn (10 changed files; packs merged as they pile up)" "${v[@]}"
v=(); for sz in "${sizes[@]}"; do v+=("${R[$sz,packs]}" ""); done
row "store: pack files after $((2 * (n + 1))) turns" "${v[@]}"
echo
printf '%-58s %9s %9s  %-7s %s\n' "target" "$(name "$first")" "$( [ "$first" != "$last" ] && name "$last")" "limit" "result"
tline() { # label, value-small, value-big, op, limit (both values judged)
	local r1 r2 res
	r1=$(check "$2" "$4" "$5"); r2=$(check "$3" "$4" "$5")
	res=ok; { [ "$r1" = MISSED ] || [ "$r2" = MISSED ]; } && res=MISSED
	printf '%-58s %9s %9s  %-7s %s\n' "$1" "$2" "$3" "$4 $5" "$res"
}
v1() { if [ -n "${R[$first,$1]:-}" ]; then ms2 "${R[$first,$1]}"; fi; }
v2() { if [ "$first" != "$last" ]; then ms2 "${R[$last,$1]}"; fi; }
tline "(1) turnEnd in the server, ms" "$(v1 L)" "$(v2 L)" "<" 10
tline "(2) turn end from the command line, ms" "$(v1 C)" "$(v2 C)" "<" 10
if [ "$first" != "$last" ]; then
	printf '%-58s %9s %9s  %-7s %s\n' "flat with size: (1) $(name "$last") / $(name "$first")" "" "$(ratio "${R[$last,L]}" "${R[$first,L]}")" "~1" "(info)"
	printf '%-58s %9s %9s  %-7s %s\n' "flat with size: (2) $(name "$last") / $(name "$first")" "" "$(ratio "${R[$last,C]}" "${R[$first,C]}")" "~1" "(info)"
fi
if [ "$first" = small ]; then
	tline "pi-rewind (b) / (1), $(name small) tree" "$(ratio "${R[small,B]}" "${R[small,L]}")" "" ">=" 20
	tline "pi-rewind (b) / (2), $(name small) tree" "$(ratio "${R[small,B]}" "${R[small,C]}")" "" ">=" 20
fi
[ "$last" = big ] || printf '%s\n' "(the memory target is for the ~80k-file tree: run with -big)"
lastcol() { if [ "$first" = "$last" ]; then printf '%s\n%s\n' "$1" ""; else printf '%s\n%s\n' "" "$1"; fi; }
mapfile -t V < <(lastcol "$((R[$last,rss_first] / 1024))"); tline "VmRSS idle after the first capture, MB" "${V[@]}" "<" 150
mapfile -t V < <(lastcol "$((R[$last,rss_after] / 1024))"); tline "VmRSS idle after the turns, MB" "${V[@]}" "<" 150
mapfile -t V < <(lastcol "${R[$last,idle1_ticks]}"); tline "CPU ticks in ${idle} s idle, after the first capture" "${V[@]}" "<=" 1
mapfile -t V < <(lastcol "${R[$last,idle2_ticks]}"); tline "CPU ticks in ${idle} s idle, after the turns" "${V[@]}" "<=" 1
echo
for sz in "${sizes[@]}"; do
	echo "per turn, $(name "$sz") tree, ms wall (cpu):"
	cat "$TMP/samples-$sz"
done
}
