# Sourced by /init: the plan of "PVPLE_BENCH_ONLY=profile make bench".
# Where L1's time goes in PLE exits with no target (pvple_bench's
# "PLE exit round trip" row), stock then pvple: perf samples every CPU
# of L1 (cpu-clock, a timer: TCG has no PMU to count with) while the
# bench's one-vCPU guest runs only PAUSE loops, and reports the symbols
# in the samples' order, kernel and module alike.
for side in stock pvple; do
	run_test "profile-$side" 900 sh -c "
		PVPLE_BENCH_EXIT=$side perf record -a -q -o /tmp/perf-$side.data \
			-- /pvple/bin/pvple_bench
		perf report -i /tmp/perf-$side.data --stdio --no-children \
			--sort dso,sym --percent-limit 0.4 2>/dev/null |
			grep -v '^\$' | head -n 70"
done
