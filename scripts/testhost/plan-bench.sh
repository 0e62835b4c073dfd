# Sourced by /init: the plan of "make bench".
run_test bench 3000 /pvple/bin/pvple_bench ${PVPLE_BENCH_SECS:-3}
