# Sourced by /init: the Linux-guest benchmark of "make bench" (guests).
run_test guestbench 7000 /pvple/bin/guests-bench.sh
