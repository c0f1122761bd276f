# Shared helpers of the benchmark scripts (sourced; needs $TMP and
# $BENCH_NAME set by the caller).

say() { printf '%s\n' "$*" >&2; }

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
