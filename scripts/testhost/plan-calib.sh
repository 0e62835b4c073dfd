# Sourced by /init: the emulator's factor of "make bench" (PVPLE_BENCH_ONLY=factor).
run_test calib 1800 /pvple/bin/calib.sh
