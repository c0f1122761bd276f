#!/usr/bin/env bash
# Monorepo-scale benchmark for rewind-lsp: every scale goal measured side by
# side with git in one run, on a copy of $(go env GOROOT)/src (~11.5k files)
# and on a generated 500,000-file tree shaped like a monorepo (bench/gen:
# folders 1–13 levels deep, sizes from bytes to 1 MiB, several languages,
# a .gitignore with ignored build output and node_modules/, a few
# symbolic links and incompressible assets).
#
# For each tree, in a fresh git repository in a temporary folder:
#   (e)  git add -A into the fresh repository (a fresh index, no objects:
#        git compresses and writes every file, as Cline's first checkpoint)
#   (g)  git add -A into a fresh index in the committed, packed repository
#        (git hashes every file and writes only the index)
#   (a0) rewind-lsp checkpoint into an empty store: the first capture
#   (a)  rewind-lsp checkpoint, a new process, store warm, after 10 changed
#        files (8 modified, 1 added, 1 deleted)      against
#   (d)  git status --porcelain on the same change (order alternates)
#   a language server started on the tree (bench/live drives it): its
#   start, (1) rewind.turnEnd after 10 changed files, (2) `rewind-lsp turn
#   end` from the command line forwarded over its socket, `rewind-lsp
#   version` (a process start alone), its VmRSS / VmHWM, the inotify
#   watches it holds (/proc/PID/fdinfo), its CPU over idle windows
#   a server under a lowered watch limit (-low): started in a user namespace
#   whose fs.inotify limit (/proc/sys/user/max_inotify_watches) is below the
#   tree's folder count; what rewind.status says, its turn end, its CPU idle
#   (R) rewind ~1, (U) undo of -rewind N files (a line appended to each),
#   from the command line with no server, against
#   (co) git checkout -- . writing the same N files back
# and prints a table of the goals, each as a ratio against its reference
# and whether it is met.
#
# usage: bench/mono.sh [-files N] [-only small|big] [-n N] [-first N] [-idle S]
#                      [-rewind N] [-low W] [-bin PATH] [-keep]
#   -files N    files of the generated tree (default 500000)
#   -only K     only the GOROOT copy (small) or only the generated tree (big)
#   -n N        timed turns of each kind (default 5 small, 3 big; one warm-up)
#   -first N    repeats of the first-capture pair a0 / g (default 1)
#   -idle S     length of each idle window (default 10 s)
#   -rewind N   files changed for the rewind and undo (default 1000)
#   -low W      the lowered watch limit (default: half of the tree's folders;
#               0 skips it)
#   -bin PATH   use this rewind-lsp binary instead of building one
#   -keep       keep the temporary folder (printed) for inspection
#
# rewind-lsp is built as scripts/release.sh builds it (CGO_ENABLED=0, -trimpath:
# a static binary, no dynamic loader at each start).
#
# Needs bash >= 5, git, go, tar, coreutils, /usr/bin/time (GNU), Linux /proc
# and unshare (util-linux) for -low. The 500k tree takes ~3.5 GB of
# temporary disk (tree, packed repository, store) and ~15 minutes; run it
# on a quiet machine, once: it loads both cores.
set -euo pipefail
export LC_ALL=C

ORIG_ARGS=("$@")
nfiles=500000 only="" n="" first=1 idle=10 nrew=1000 low="" bin="" keep=0
while [ $# -gt 0 ]; do
	case $1 in
	-files | --files) nfiles=$2; shift 2 ;;
	-only | --only) only=$2; shift 2 ;;
	-n | --n) n=$2; shift 2 ;;
	-first | --first) first=$2; shift 2 ;;
	-idle | --idle) idle=$2; shift 2 ;;
	-rewind | --rewind) nrew=$2; shift 2 ;;
	-low | --low) low=$2; shift 2 ;;
	-bin | --bin) bin=$2; shift 2 ;;
	-keep | --keep) keep=1; shift ;;
	-h | -help | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "mono.sh: unknown argument $1 (see -help)" >&2; exit 2 ;;
	esac
done
for v in "$nfiles" "$first" "$idle" "$nrew" ${n:+"$n"} ${low:+"$low"}; do
	[[ $v =~ ^[0-9]+$ ]] || { echo "mono.sh: $v is not a number" >&2; exit 2; }
done
case $only in "") sizes=(small big) ;; small | big) sizes=("$only") ;; *) echo "mono.sh: -only small|big" >&2; exit 2 ;; esac

repo=$(cd "$(dirname "$0")/.." && pwd)
for tool in git go awk sort du tar find; do
	command -v "$tool" >/dev/null || { echo "mono.sh: $tool is required" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "mono.sh: GNU time is required (apt-get install time)" >&2; exit 1; }
[ -r /proc/self/schedstat ] || { echo "mono.sh: needs Linux /proc" >&2; exit 1; }

BENCH_NAME=mono.sh
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
make_tmp mono
DPID="" DRV_IN="" DRV_OUT=""
stop_driver() {
	if [ -n "$DPID" ]; then
		{ echo quit >&"$DRV_IN"; } 2>/dev/null || true
		local i
		for i in $(seq 1 100); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
		kill "$DPID" 2>/dev/null || true
		wait "$DPID" 2>/dev/null || true
		DPID=""
	fi
}
before_cleanup() { stop_driver; }

ms2() { awk -v u="$1" 'BEGIN{if(u==""||u=="-")print "-"; else printf "%.2f", u/1000}'; }
sec() { awk -v u="$1" 'BEGIN{if(u==""||u=="-")print "-"; else printf "%.2f s", u/1e6}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{if(a==""||b==""||a=="-"||b=="-")print "-"; else if(b>0)printf "%.2f", a/b; else print "inf"}'; }

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1
real_home=$(getent passwd "$(id -u)" | cut -d: -f6 || true)
mkdir -p "$HOME"
unset XDG_CONFIG_HOME GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY REWIND_LSP_HOME REWIND_LSP_NO_SERVER || true
G=(git -c user.name=rewind-bench -c user.email=bench@rewind-lsp.invalid -c gc.auto=0 -c maintenance.auto=false)
gohome=(env HOME="${real_home:-$HOME}")

# ---------------------------------------------------------------- build
mkdir -p "$TMP/bin"
if [ -z "$bin" ]; then
	bin="$TMP/bin/rewind-lsp"
	say "building rewind-lsp …"
	(cd "$repo" && "${gohome[@]}" CGO_ENABLED=0 go build -trimpath -o "$bin" ./cmd/rewind-lsp) || { say "mono.sh: build failed"; exit 1; }
fi
[ -x "$bin" ] || { say "mono.sh: no binary at $bin"; exit 1; }
drv="$TMP/bin/live" gen="$TMP/bin/gen"
(cd "$repo" && "${gohome[@]}" go build -o "$drv" ./bench/live && "${gohome[@]}" go build -o "$gen" ./bench/gen) ||
	{ say "mono.sh: building bench/live or bench/gen failed"; exit 1; }
goroot=$("${gohome[@]}" go env GOROOT)

# ---------------------------------------------------------------- driver
drv_start() { # drv_start TREE STORE LOG [WATCH_LIMIT]: a server, driven by bench/live
	local limit=${4:-}
	if [ -n "$limit" ]; then
		# A user namespace of its own, whose inotify watch limit is lowered:
		# the kernel refuses the server's watches past it (ENOSPC).
		coproc DRV { REWIND_LSP_TRACE=1 exec unshare -U -r sh -c 'echo "$1" >/proc/sys/user/max_inotify_watches && shift && exec "$@"' sh "$limit" \
			"$drv" -bin "$bin" -root "$1" -store "$2" -quiet 3000 -log "$3.server" 2>"$3"; }
	else
		coproc DRV { REWIND_LSP_TRACE=1 exec "$drv" -bin "$bin" -root "$1" -store "$2" -quiet 3000 -log "$3.server" 2>"$3"; }
	fi
	DRV_OUT=${DRV[0]} DRV_IN=${DRV[1]} DPID=$DRV_PID
}
ask() {
	echo "$*" >&"$DRV_IN"
	if ! read -r -t 1800 -u "$DRV_OUT" REPLY; then
		say "mono.sh: no answer from the driver to '$*'"; cat "$LOG" >&2; exit 1
	fi
	case $REPLY in error*) say "mono.sh: driver: $* -> $REPLY"; cat "$LOG" >&2; exit 1 ;; esac
}
idle_window() { # IDLE_TICKS, IDLE_US: the server's CPU over $idle seconds of nothing
	local t0 u0 t1 u1
	ask cpu; read -r t0 u0 <<<"$REPLY"
	sleep "$idle"
	ask cpu; read -r t1 u1 <<<"$REPLY"
	IDLE_TICKS=$((t1 - t0)) IDLE_US=$((u1 - u0))
}
watches() { # watches PID: inotify watches the process holds
	local fd total=0 c
	for fd in /proc/"$1"/fd/*; do
		[ "$(readlink "$fd" 2>/dev/null)" = "anon_inode:inotify" ] || continue
		c=$(grep -c '^inotify wd' "/proc/$1/fdinfo/${fd##*/}" 2>/dev/null || true)
		total=$((total + ${c:-0}))
	done
	echo "$total"
}
vm() { awk -v k="$2:" '$1==k{print int($2/1024)}' "/proc/$1/status"; } # vm PID VmRSS|VmHWM -> MB
turn_trace() { # turn_trace OFFSET: REPLY = the server's "turn end" total (µs) logged after OFFSET
	REPLY=$(tail -c +$(($1 + 1)) "$LOG.server" | awk '/rewind-lsp trace: turn end /{x=$5; sub(/ms$/,"",x); v=int(x*1000+0.5)} END{print (v==""?"-":v)}')
}

# ---------------------------------------------------------------- trees
# Files to change: tracked regular files of 200 B – 256 KiB in a fixed
# pseudo-random order; change K modifies 8, deletes 1, adds 1.
next_file=0
take() { REPLY=${pool[next_file % ${#pool[@]}]}; next_file=$((next_file + 1)); }
apply_change() { # apply_change K
	local j src dst
	for j in 0 1 2 3 4 5 6 7; do
		take; printf '\n// rewind-lsp mono bench: change %d edit %d\n' "$1" "$j" >>"$TREE/$REPLY"
	done
	take; rm -f -- "$TREE/$REPLY"
	take; src=$REPLY
	dst="$(dirname -- "$src")/bench_added_$1_$(basename -- "$src")"
	{ cat -- "$TREE/$src"; printf '\n// rewind-lsp mono bench: added by change %d\n' "$1"; } >"$TREE/$dst"
}
cli() { "$bin" --root "$TREE" --store "$STORE" "$@"; }
gtime() { # gtime VAR CMD...: like timed, plus VAR_rss (max RSS, MB) from GNU time
	timed "$1" /usr/bin/time -f '%M' -o "$TMP/gtime" "${@:2}"
	printf -v "${1}_rss" '%d' $(($(tail -n1 "$TMP/gtime") / 1024))
}

declare -A R

measure() { # measure small|big
	local sz=$1 k it t tl c0 c1 off r
	TREE="$TMP/tree-$sz" STORE="$TMP/store-$sz" LOG="$TMP/driver-$sz.log"
	local turns=${n:-$([ "$sz" = big ] && echo 3 || echo 5)}
	R[$sz,turns]=$turns
	rm -rf "$TREE"; mkdir -p "$TREE"
	if [ "$sz" = big ]; then
		say "[$sz] generating $nfiles files (bench/gen) …"
		R[$sz,what]="generated by bench/gen -files $nfiles -seed 1 (corpus: $goroot/src)"
		R[$sz,gen]=$("$gen" -out "$TREE" -files "$nfiles" -seed 1 -corpus "$goroot/src")
	else
		say "[$sz] copying $goroot/src …"
		R[$sz,what]="copy of $goroot/src"
		copy_tree "$goroot/src" "$TREE"
	fi
	sync
	run "${G[@]}" -C "$TREE" init -q
	say "[$sz] (e) git add -A into the fresh repository …"
	timed t "${G[@]}" -C "$TREE" add -A; R[$sz,e]=$t R[$sz,ec]=$t_cpu
	say "[$sz] commit, gc …"
	run "${G[@]}" -C "$TREE" commit -q --no-verify -m "benchmark tree"
	run "${G[@]}" -C "$TREE" gc -q
	run "${G[@]}" -C "$TREE" status --porcelain
	sync
	R[$sz,files]=$("${G[@]}" -C "$TREE" ls-files | wc -l)
	R[$sz,dirs]=$("${G[@]}" -C "$TREE" ls-files | awk -F/ '{p=""; for(i=1;i<NF;i++){p=p"/"$i; d[p]=1}} END{print length(d)+1}')
	R[$sz,alldirs]=$(find "$TREE" -name .git -prune -o -type d -print | wc -l)
	R[$sz,mb]=$(du -sm --exclude=.git "$TREE" | awk '{print $1}')
	make_pool "$TREE"
	R[$sz,load_before]=$(uptime)

	# First capture (a0) against git add -A into a fresh index (g), both
	# with the tree warm in the page cache, alternating.
	local A0=() A0c=() GG=() GGc=() A0m=()
	for r in $(seq 1 "$first"); do
		rm -rf "$STORE"
		if [ $((r % 2)) = 1 ]; then
			say "[$sz] first capture $r/$first: (a0) then (g) …"
			REWIND_LSP_TRACE=1 gtime t "$bin" --root "$TREE" --store "$STORE" checkpoint; A0+=("$t") A0c+=("$t_cpu") A0m+=("$t_rss"); cp "$TMP/err" "$TMP/trace-a0-$sz"
			sync
			rm -f "$TMP/fresh-index"; timed t env GIT_INDEX_FILE="$TMP/fresh-index" "${G[@]}" -C "$TREE" add -A; GG+=("$t") GGc+=("$t_cpu")
		else
			say "[$sz] first capture $r/$first: (g) then (a0) …"
			rm -f "$TMP/fresh-index"; timed t env GIT_INDEX_FILE="$TMP/fresh-index" "${G[@]}" -C "$TREE" add -A; GG+=("$t") GGc+=("$t_cpu")
			REWIND_LSP_TRACE=1 gtime t "$bin" --root "$TREE" --store "$STORE" checkpoint; A0+=("$t") A0c+=("$t_cpu") A0m+=("$t_rss"); cp "$TMP/err" "$TMP/trace-a0-$sz"
		fi
		sync
	done
	R[$sz,a0]=$(median "${A0[@]}") R[$sz,a0c]=$(median "${A0c[@]}") R[$sz,a0m]=$(median "${A0m[@]}")
	R[$sz,g]=$(median "${GG[@]}") R[$sz,gc]=$(median "${GGc[@]}")
	R[$sz,store_first]=$(du -sm "$STORE" | awk '{print $1}')
	if command -v zstd >/dev/null; then
		# (z) the floor of storing every file compressed: read them all and
		# compress them with zstd's C tool at its fastest level, both cores.
		say "[$sz] (z) tar | zstd -1 -T0 of the tracked files …"
		timed t sh -c '"$@" | tar -C "$0" --null -T - -cf - | zstd -q -1 -T0 >/dev/null' "$TREE" "${G[@]}" -C "$TREE" ls-files -z
		R[$sz,z]=$t R[$sz,zc]=$t_cpu
	fi

	# (a) cold checkpoint after 10 changed files against (d) git status.
	local AA=() AAc=() DD=() DDc=() AAm=()
	k=0
	for it in $(seq 0 "$turns"); do
		say "[$sz] checkpoint $it/$turns (0: warm-up): (a) and (d) …"
		apply_change "$k"; k=$((k + 1))
		if [ $((it % 2)) = 0 ]; then
			REWIND_LSP_TRACE=1 gtime t "$bin" --root "$TREE" --store "$STORE" checkpoint; cp "$TMP/err" "$TMP/trace-a-$sz"; local ta=$t tac=$t_cpu tam=$t_rss
			timed t "${G[@]}" -C "$TREE" status --porcelain
		else
			timed t "${G[@]}" -C "$TREE" status --porcelain; local td=$t tdc=$t_cpu
			REWIND_LSP_TRACE=1 gtime t "$bin" --root "$TREE" --store "$STORE" checkpoint; cp "$TMP/err" "$TMP/trace-a-$sz"; local ta=$t tac=$t_cpu tam=$t_rss
			t=$td t_cpu=$tdc
		fi
		if [ "$it" -gt 0 ]; then AA+=("$ta") AAc+=("$tac") AAm+=("$tam") DD+=("$t") DDc+=("$t_cpu"); fi
	done
	R[$sz,a]=$(median "${AA[@]}") R[$sz,ac]=$(median "${AAc[@]}") R[$sz,am]=$(median "${AAm[@]}")
	R[$sz,d]=$(median "${DD[@]}") R[$sz,dc]=$(median "${DDc[@]}")

	# The server: start, turns through LSP and through the socket, memory,
	# watches, idle CPU.
	say "[$sz] starting the server on the warm store …"
	drv_start "$TREE" "$STORE" "$LOG"
	ask init
	ask ready 1800; read -r R[$sz,mode] R[$sz,ready] _ <<<"$REPLY"
	ask pid; local pid=$REPLY
	sleep 3
	R[$sz,watches]=$(watches "$pid")
	R[$sz,rss1]=$(vm "$pid" VmRSS)
	idle_window; R[$sz,idle1]=$IDLE_TICKS R[$sz,idle1us]=$IDLE_US
	local L=() C=() CY=() V=() Ls=()
	for it in $(seq 0 "$turns"); do
		say "[$sz] server turn $it/$turns (0: warm-up) …"
		ask quiet
		ask start
		apply_change "$k"; k=$((k + 1))
		ask end; read -r tl t_srv _ nch _ <<<"$REPLY"
		[ "$nch" = 10 ] || say "[$sz] warning: the turn recorded $nch changed files, not 10"
		ask quiet
		run cli turn start --prompt p
		apply_change "$k"; k=$((k + 1))
		off=$(stat -c %s "$LOG.server")
		timed t cli --json turn end
		local tc=$t
		nch=$(grep -c '"path"' "$TMP/out" || true)
		[ "$nch" = 10 ] || say "[$sz] warning: the command-line turn end recorded $nch changed files, not 10"
		turn_trace "$off"; local ty=$REPLY
		timed t "$bin" version
		if [ "$it" -gt 0 ]; then L+=("$tl") Ls+=("$t_srv") C+=("$tc") CY+=("$ty") V+=("$t"); fi
	done
	R[$sz,L]=$(median "${L[@]}") R[$sz,Ls]=$(median "${Ls[@]}") R[$sz,C]=$(median "${C[@]}") R[$sz,V]=$(median "${V[@]}")
	R[$sz,CY]=$(median "${CY[@]}")
	R[$sz,Lall]="${L[*]}" R[$sz,Call]="${C[*]}"
	sleep 5
	R[$sz,rss2]=$(vm "$pid" VmRSS) R[$sz,hwm]=$(vm "$pid" VmHWM)
	R[$sz,watches2]=$(watches "$pid")
	idle_window; R[$sz,idle2]=$IDLE_TICKS R[$sz,idle2us]=$IDLE_US
	stop_driver

	# A lowered watch limit: the poller must take over and say so.
	local lim=${low:-$((R[$sz,dirs] / 2))}
	if [ "$lim" -gt 0 ] && unshare -U -r true 2>/dev/null; then
		say "[$sz] a server under a watch limit of $lim (user namespace) …"
		LOG="$TMP/driver-$sz-low.log"
		drv_start "$TREE" "$STORE" "$LOG" "$lim"
		ask init
		ask ready 1800; read -r R[$sz,lmode] R[$sz,lready] _ <<<"$REPLY"
		ask pid; pid=$REPLY
		ask status; R[$sz,lstatus]=$(printf '%s' "$REPLY" | grep -o '"watch[A-Za-z]*":[^,}]*' | tr '\n' ' ')
		R[$sz,lwhy]=$(grep -h -m1 -o 'file notifications are unavailable.*\|polling.*' "$LOG" "$LOG.server" 2>/dev/null | head -n1 || true)
		R[$sz,lstatus_cli]=$(cli status 2>&1 | grep -i 'watch\|poll' | tr '\n' ' ' || true)
		[ -n "${R[$sz,lstatus_cli]}" ] || R[$sz,lstatus_cli]="(nothing about watching or polling)"
		sleep 3
		R[$sz,lwatches]=$(watches "$pid")
		ask quiet
		ask start
		apply_change "$k"; k=$((k + 1))
		ask end; read -r tl _ _ nch _ <<<"$REPLY"
		R[$sz,lL]=$tl R[$sz,lnch]=$nch
		sleep 3
		idle_window; R[$sz,lidle]=$IDLE_TICKS R[$sz,lidleus]=$IDLE_US
		R[$sz,lrss]=$(vm "$pid" VmRSS)
		stop_driver
		LOG="$TMP/driver-$sz.log"
	fi
	R[$sz,low]=$lim

	# Rewind and undo of N files against git checkout of the same files,
	# from the command line, no server.
	"${G[@]}" -C "$TREE" checkout -q -- . 2>/dev/null || true # the deleted files back
	make_pool "$TREE"
	local RW=() UD=() CO=()
	for r in 1 2 3; do
		say "[$sz] rewind/undo of $nrew files, run $r/3 …"
		"${G[@]}" -C "$TREE" checkout -q -- . 2>/dev/null || true
		run cli turn start --prompt "rewind $r"
		for ((j = 0; j < nrew; j++)); do
			take; printf '\n// rewind-lsp mono bench: rewind run %d\n' "$r" >>"$TREE/$REPLY"
		done
		run cli turn end
		REWIND_LSP_TRACE=1 timed t cli rewind ~1; RW+=("$t"); cp "$TMP/err" "$TMP/trace-rewind-$sz"
		REWIND_LSP_TRACE=1 timed t cli undo; UD+=("$t"); cp "$TMP/err" "$TMP/trace-undo-$sz"
		timed t "${G[@]}" -C "$TREE" checkout -q -- .; CO+=("$t")
	done
	R[$sz,RW]=$(median "${RW[@]}") R[$sz,UD]=$(median "${UD[@]}") R[$sz,CO]=$(median "${CO[@]}")
	R[$sz,load_after]=$(uptime)
	R[$sz,store_after]=$(du -sm "$STORE" | awk '{print $1}')
	if [ "$keep" != 1 ]; then rm -rf "$TREE" "$STORE" "$TMP/fresh-index"; fi
}

for sz in "${sizes[@]}"; do measure "$sz"; done

# ---------------------------------------------------------------- report
name() { awk -v f="${R[$1,files]}" 'BEGIN{printf (f < 10000 ? "%.1fk" : "%.0fk"), f/1000}'; }
row() { # label, then one value per size
	local label=$1; shift
	printf '%-62s' "$label"
	while [ $# -gt 0 ]; do printf ' %18s' "$1"; shift; done
	printf '\n'
}
per() { local sz out=(); for sz in "${sizes[@]}"; do out+=("$(eval "$1")"); done; printf '%s\n' "${out[@]}"; }
prow() { local label=$1; mapfile -t V < <(per "$2"); row "$label" "${V[@]}"; }
# judge VALUE OP LIMIT: ok / MISSED by how much
judge() {
	awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN{
		if (v=="" || v=="-") { print "-"; exit }
		ok = (op=="<=") ? (v<=l) : (op=="<") ? (v<l) : (v>=l)
		if (ok) print "ok"; else printf "MISSED by %.0f%%\n", (v/l-1)*100 }'
}
goal() { # goal LABEL SIZE VALUE OP LIMIT REFERENCE
	printf '%-50s %-5s %9s  %-7s %-24s %s\n' "$1" "$(name "$2")" "$3" "$4 $5" "$(judge "$3" "$4" "$5")" "$6"
}
{
echo
echo "rewind-lsp monorepo-scale benchmark — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "command:  bench/mono.sh${ORIG_ARGS[*]+ ${ORIG_ARGS[*]}}"
for sz in "${sizes[@]}"; do
	echo "tree $(name "$sz"):  ${R[$sz,what]} — ${R[$sz,files]} tracked files in ${R[$sz,dirs]} folders (${R[$sz,alldirs]} with ignored ones), ${R[$sz,mb]} MB on disk"
	[ -z "${R[$sz,gen]:-}" ] || echo "            bench/gen: ${R[$sz,gen]}"
done
echo "machine:  $(nproc) cores, $(uname -sr), $(git --version | cut -d' ' -f3- | sed 's/^/git /'), $("$bin" version 2>/dev/null || echo 'rewind-lsp ?'), $("${gohome[@]}" go version | cut -d' ' -f3)"
echo "inotify:  fs.inotify.max_user_watches = $(cat /proc/sys/fs/inotify/max_user_watches 2>/dev/null || echo '?') (shared by every process of this user)"
for sz in "${sizes[@]}"; do
	echo "uptime $(name "$sz"): before: ${R[$sz,load_before]}"
	echo "              after:  ${R[$sz,load_after]}"
done
echo "run:      $((SECONDS / 60)) min $((SECONDS % 60)) s in all"
echo "turns:    median of ${R[${sizes[0]},turns]}$([ "${#sizes[@]}" = 2 ] && echo " (11k) / ${R[big,turns]} (big)") after one warm-up; each after 10 changed files"
echo "          (8 modified, 1 added, 1 deleted, different files each time); trees warm in the page cache"
echo
hdr=(); for sz in "${sizes[@]}"; do hdr+=("$(name "$sz") wall (cpu)"); done
row "median, ms" "${hdr[@]}"
prow "(e)  git add -A into the fresh repository (writes objects)" 'echo "$(ms ${R[$sz,e]}) ($(ms ${R[$sz,ec]}))"'
prow "(g)  git add -A into a fresh index (objects present)" 'echo "$(ms ${R[$sz,g]}) ($(ms ${R[$sz,gc]}))"'
prow "(z)  tar | zstd -1 -T0 of the tracked files (read, compress)" 'echo "$(ms ${R[$sz,z]:-}) ($(ms ${R[$sz,zc]:-}))"'
prow "(a0) rewind-lsp first capture, empty store" 'echo "$(ms ${R[$sz,a0]}) ($(ms ${R[$sz,a0c]}))"'
prow "       its peak RSS, MB; the store after it, MB" 'echo "${R[$sz,a0m]}; ${R[$sz,store_first]}"'
prow "(a)  rewind-lsp checkpoint, new process, warm store" 'echo "$(ms ${R[$sz,a]}) ($(ms ${R[$sz,ac]}))"'
prow "       its peak RSS, MB" 'echo "${R[$sz,am]}"'
prow "(d)  git status --porcelain" 'echo "$(ms ${R[$sz,d]}) ($(ms ${R[$sz,dc]}))"'
prow "server: watchMode; first capture ready after (warm store)" 'echo "${R[$sz,mode]}; $(awk -v m=${R[$sz,ready]} "BEGIN{printf \"%.1f s\", m/1000}")"'
prow "(1)  rewind.turnEnd in the server (server cpu)" 'echo "$(ms2 ${R[$sz,L]}) ($(ms2 ${R[$sz,Ls]}))"'
prow "(2)  rewind-lsp turn end -> socket -> server" 'echo "$(ms2 ${R[$sz,C]})"'
prow "       of which the server's turn end (trace)" 'echo "$(ms2 ${R[$sz,CY]})"'
prow "     rewind-lsp version (a process start alone)" 'echo "$(ms2 ${R[$sz,V]})"'
prow "server VmRSS idle after start / after turns, MB" 'echo "${R[$sz,rss1]} / ${R[$sz,rss2]}"'
prow "server VmHWM (peak), MB" 'echo "${R[$sz,hwm]}"'
prow "server CPU in ${idle} s idle, after start / turns, ms" 'echo "$(ms2 ${R[$sz,idle1us]}) / $(ms2 ${R[$sz,idle2us]})"'
prow "       the same in clock ticks (utime+stime)" 'echo "${R[$sz,idle1]} / ${R[$sz,idle2]}"'
prow "inotify watches held (folders + the store)" 'echo "${R[$sz,watches]}"'
prow "lowered limit: max_inotify_watches in the namespace" 'echo "${R[$sz,low]}"'
prow "  watchMode; rewind.status" 'echo "${R[$sz,lmode]:--}; ${R[$sz,lstatus]:--}"'
prow "  ready after; watches held" 'echo "$(awk -v m=${R[$sz,lready]:-0} "BEGIN{printf \"%.1f s\", m/1000}"); ${R[$sz,lwatches]:--}"'
prow "  rewind.turnEnd (files recorded)" 'echo "$(ms2 ${R[$sz,lL]:--}) (${R[$sz,lnch]:--})"'
prow "  CPU in ${idle} s idle, ms (ticks)" 'echo "$(ms2 ${R[$sz,lidleus]:--}) (${R[$sz,lidle]:--})"'
prow "(R)  rewind ~1 of $nrew changed files" 'echo "$(ms ${R[$sz,RW]})"'
prow "(U)  undo of it" 'echo "$(ms ${R[$sz,UD]})"'
prow "(co) git checkout -- . of the same files" 'echo "$(ms ${R[$sz,CO]})"'
echo
for sz in "${sizes[@]}"; do
	[ -z "${R[$sz,lwhy]:-}" ] || echo "lowered limit, $(name "$sz"): the server logged: ${R[$sz,lwhy]}"
	[ -z "${R[$sz,lstatus_cli]:-}" ] || echo "lowered limit, $(name "$sz"): rewind-lsp status printed: ${R[$sz,lstatus_cli]}"
done
echo
printf '%-50s %-5s %9s  %-7s %-24s %s\n' goal tree value limit result reference
for sz in "${sizes[@]}"; do
	goal "cold checkpoint / git status" "$sz" "$(ratio "${R[$sz,a]}" "${R[$sz,d]}")" "<=" 1.2 "(a) / (d)"
	if [ "$sz" = big ]; then
		goal "first capture / git add -A, fresh index" "$sz" "$(ratio "${R[$sz,a0]}" "${R[$sz,g]}")" "<=" 1.0 "(a0) / (g)"
		goal "first capture / git add -A, fresh repository" "$sz" "$(ratio "${R[$sz,a0]}" "${R[$sz,e]}")" "<=" 1.0 "(a0) / (e), info"
		goal "server turn end, ms" "$sz" "$(ms2 "${R[$sz,L]}")" "<" 20 "(1)"
		goal "server memory after the turns, MB" "$sz" "${R[$sz,rss2]}" "<" 600 "VmRSS"
		goal "server CPU idle after the turns, ticks in ${idle} s" "$sz" "${R[$sz,idle2]}" "<=" 1 "utime+stime"
	else
		goal "turn end through the socket, ms" "$sz" "$(ms2 "${R[$sz,C]}")" "<" 8 "(2)"
		goal "server turn end, ms" "$sz" "$(ms2 "${R[$sz,L]}")" "<" 10 "(1)"
	fi
	goal "rewind of $nrew files / git checkout" "$sz" "$(ratio "${R[$sz,RW]}" "${R[$sz,CO]}")" "<=" 1.0 "(R) / (co)"
	goal "undo of $nrew files / git checkout" "$sz" "$(ratio "${R[$sz,UD]}" "${R[$sz,CO]}")" "<=" 1.0 "(U) / (co)"
	if [ -n "${R[$sz,lmode]:-}" ]; then
		printf '%-50s %-5s %9s  %-7s %-24s %s\n' "lowered watch limit: polls, status says so" "$(name "$sz")" "${R[$sz,lmode]}" "poll" \
			"$([ "${R[$sz,lmode]}" = poll ] && echo ok || echo MISSED)" "rewind.status watchMode"
		goal "lowered watch limit: rescans' CPU, % of a core" "$sz" "$(awk -v u="${R[$sz,lidleus]}" -v s="$idle" 'BEGIN{printf "%.1f", u/(s*1e4)}')" "<=" 5 "idle, schedstat"
	fi
done
echo
echo "measured floors (what a goal's time is made of; REWIND_LSP_TRACE phases of the last run):"
phase() { # phase FILE LINE-NAME PHASE-NAME: ms of a phase in a trace line
	[ -f "$1" ] || { echo "-"; return; }
	awk -v l="rewind-lsp trace: $2 " -v p="$3" 'index($0, l) == 1 {
		gsub(/ \([^)]*\)/, ""); n = split($0, f, /[:,] /); for (i = 2; i <= n; i++) if (index(f[i], p " ") == 1) { x = f[i]; sub(/.* /, "", x); sub(/ms$/, "", x); v = x } }
		END { print (v == "" ? "-" : v) }' "$1"
}
for sz in "${sizes[@]}"; do
	tr=$TMP/trace-a-$sz
	echo "  $(name "$sz") cold checkpoint $(ms "${R[$sz,a]}") ms: a process start $(ms2 "${R[$sz,V]}"), stat cache $(phase "$tr" capture "load stat cache"), ignore rules $(phase "$tr" capture "ignore rules"), walk $(phase "$tr" capture walk), save stat cache $(phase "$tr" capture "save stat cache") ms; git status $(ms "${R[$sz,d]}") ms"
	echo "  $(name "$sz") first capture $(ms "${R[$sz,a0]}") ms: reading and compressing every file with zstd's C tool (z) $(ms "${R[$sz,z]:-}") ms = $(ratio "${R[$sz,z]:-}" "${R[$sz,g]}") x (g)"
	echo "  $(name "$sz") turn end through the socket $(ms2 "${R[$sz,C]}") ms: a process start $(ms2 "${R[$sz,V]}") + the server's turn end $(ms2 "${R[$sz,CY]}") ms"
	tr=$TMP/trace-rewind-$sz
	echo "  $(name "$sz") rewind $(ms "${R[$sz,RW]}") ms: capture $(phase "$tr" rewind capture), plan $(phase "$tr" rewind plan), intent $(phase "$tr" "rewind steps" "intent recorded"), file writes $(phase "$tr" "disk writes" "$nrew files") + sync $(phase "$tr" "disk writes" sync) ms; git checkout $(ms "${R[$sz,CO]}") ms"
	tr=$TMP/trace-undo-$sz
	echo "  $(name "$sz") undo $(ms "${R[$sz,UD]}") ms: capture $(phase "$tr" undo capture) (walk $(phase "$tr" capture walk), reading the files the rewind wrote), plan $(phase "$tr" undo plan), intent $(phase "$tr" "undo steps" "intent recorded"), file writes $(phase "$tr" "disk writes" "$nrew files") + sync $(phase "$tr" "disk writes" sync) ms"
done
echo
for sz in "${sizes[@]}"; do
	echo "per turn, $(name "$sz"): (1) ${R[$sz,Lall]} µs; (2) ${R[$sz,Call]} µs"
	for f in a0 a rewind undo; do
		[ -f "$TMP/trace-$f-$sz" ] && grep -h 'trace' "$TMP/trace-$f-$sz" | sed "s/^/  $(name "$sz") $f: /" || true
	done
done
}
