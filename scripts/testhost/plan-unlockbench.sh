# Sourced by /init: the unlock bench of "make bench" (PVPLE_BENCH_ONLY=unlock).
run_test unlockbench 2400 /pvple/bin/unlock-cost.sh
