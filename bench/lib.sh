# Shared helpers of the benchmark scripts (sourced; the caller sets
# $BENCH_NAME and calls make_tmp before using the others).

say() { printf '%s\n' "$*" >&2; }

# make_tmp NAME: sets $TMP to a fresh folder, removed on exit unless $keep
# is 1 (then it is printed). A script that must stop something first
# defines before_cleanup.
make_tmp() {
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/rewind-$1.XXXXXX")
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
}
bench_cleanup() {
	if declare -F before_cleanup >/dev/null; then before_cleanup; fi
	if [ "${keep:-0}" = 1 ]; then echo "kept $TMP"; return; fi
	chmod -R u+w "$TMP" 2>/dev/null || true
	rm -rf "$TMP"
}

# ms MICROSECONDS: milliseconds with one decimal ("-" for none).
ms() { awk -v u="$1" 'BEGIN{if(u=="")print "-"; else printf "%.1f", u/1000}'; }

if [ -n "${EPOCHREALTIME:-}" ]; then
	now_us() { local t=${EPOCHREALTIME/[.,]/}; REPLY=$((10#$t)); }
else
	now_us() { REPLY=$(date +%s%6N); }
fi

# run CMD... : run quietly, abort the benchmark with its output on failure.
run() {
	if ! "$@" >"$TMP/out" 2>"$TMP/err"; then
		say "$BENCH_NAME: failed: $*"; cat "$TMP/out" "$TMP/err" >&2; exit 1
	fi
}

# cpu_us: REPLY = user+system CPU time of all reaped children so far, in µs
# (the "times" builtin, read without forking; resolution 1 ms).
to_us() { # 0m1.234s -> µs in REPLY
	local x=$1 m s
	m=${x%%m*} s=${x#*m}; s=${s%s}
	REPLY=$(((10#$m * 60 + 10#${s%.*}) * 1000000 + 10#${s#*.} * 1000))
}
cpu_us() {
	local shell_times cu cs u
	times >"$TMP/times"
	{ read -r shell_times; read -r cu cs; } <"$TMP/times"
	to_us "$cu"; u=$REPLY
	to_us "$cs"; REPLY=$((u + REPLY))
}

# timed VAR CMD... : run CMD; VAR = its wall time in µs, VAR_cpu = the CPU
# time (user+system) of the processes it ran, in µs.
timed() {
	local var=$1 t0 c0 t1; shift
	cpu_us; c0=$REPLY
	now_us; t0=$REPLY
	run "$@"
	now_us; t1=$REPLY
	cpu_us
	printf -v "$var" '%d' $((t1 - t0))
	printf -v "${var}_cpu" '%d' $((REPLY - c0))
}

# median of the numbers given (the mean of the middle two for an even count).
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{if(NR%2)print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

# ---------------------------------------------------------------- trees
# (need $G, git with the benchmark's configuration, set by the caller)

copy_tree() { tar -C "$1" --exclude=.git -cf - . | tar -C "$2" -xf -; }

# build_tree DIR SRC [COPIES]: DIR becomes a copy of SRC (its .git folders
# left out), or COPIES copies of it in copy1…copyN, committed into a fresh
# git repository and packed (a real repository is; loose objects would slow
# git), its index refreshed once.
build_tree() {
	local dir=$1 src=$2 copies=${3:-0} i
	rm -rf "$dir"; mkdir -p "$dir"
	if [ "$copies" -gt 0 ]; then
		for i in $(seq 1 "$copies"); do mkdir -p "$dir/copy$i"; copy_tree "$src" "$dir/copy$i"; done
	else
		copy_tree "$src" "$dir"
	fi
	run "${G[@]}" -C "$dir" init -q
	run "${G[@]}" -C "$dir" add -A
	run "${G[@]}" -C "$dir" commit -q --no-verify -m "benchmark tree"
	run "${G[@]}" -C "$dir" gc -q
	run "${G[@]}" -C "$dir" status --porcelain
}

# copies_for SRC: how many copies of SRC make ~80k files.
copies_for() {
	local one
	one=$(cd "$1" && find . -name .git -prune -o \( -type f -o -type l \) -print | wc -l)
	echo $(((80000 + one - 1) / one))
}

# make_pool DIR [SUFFIX]: pool = the tracked regular files of DIR of
# 200 B – 256 KiB (ending in SUFFIX, if given), in a fixed pseudo-random
# order: the files the benchmarks change.
make_pool() {
	mapfile -t pool < <(
		"${G[@]}" -C "$1" ls-files -s | awk '$1=="100644"||$1=="100755"' | cut -f2- |
			awk -v s="${2:-}" 's=="" || substr($0, length($0)-length(s)+1)==s' |
			(cd "$1" && xargs -d '\n' stat -c '%s %n') | awk '$1>=200 && $1<=262144 {sub(/^[0-9]+ /,""); print}' |
			awk 'BEGIN{srand(42)} {printf "%.9f\t%s\n", rand(), $0}' | sort -k1,1 | cut -f2-
	)
}

# git_capture DIR INDEXFILE: pi-rewind's capture (add -A, write-tree,
# commit-tree) with INDEXFILE as git's index.
git_capture() {
	local tree
	GIT_INDEX_FILE=$2 "${G[@]}" -C "$1" add -A || return
	tree=$(GIT_INDEX_FILE=$2 "${G[@]}" -C "$1" write-tree) || return
	GIT_INDEX_FILE=$2 "${G[@]}" -C "$1" commit-tree "$tree" -p HEAD -m checkpoint
}
