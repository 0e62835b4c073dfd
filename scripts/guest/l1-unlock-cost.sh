#!/bin/sh
# Runs inside the test host (L1): what the guest series' end-of-section
# test costs an uncontended spin_lock()/spin_unlock() pair (ABI 5: the
# guest turns it on only for a host that answers PVPLE_F_SLICE).  Boots
# the series' kernel with its timing module (l2.cost=1, scripts/guest/
# l2-unlock-cost), which times on one vCPU; two vCPUs, as with one the
# guest turns paravirt spinlocks, and so pvple, off (kvm_spinlock_init()).
# Three arms per block:
#   on    the host grants (slice_ext_us=50): the guest's key is on
#   off   the host does not (slice_ext_us=0): the key is off
#   off2  the same again: the A/A row, the instrument's own noise
# in each block's own order of the six (L2_COST_BLOCKS blocks, 6 by
# default: each order once).  Lines "# cost block=B arm=A key=K secs=S
# pairs=N rounds=T:R ..." carry each round's two times (the lock pairs,
# the reference loop) of each boot, for the analysis on the machine under
# the test host (scripts/guest/unlock-cost.awk).  TAP: every boot's
# key is the one its arm wants, and every boot timed its rounds.
. "$(dirname "$0")/l1-lib.sh"
blocks=${L2_COST_BLOCKS:-6}
p=/sys/module/kvm_pvple/parameters

echo "TAP version 13"
echo "1..2"
keeper_start
us0=$(cat $p/slice_ext_us)
bad_key=0 bad_run=0 b=1
while [ "$b" -le "$blocks" ]; do
	case $((b % 6)) in
	1) order="on off off2" ;;
	2) order="off off2 on" ;;
	3) order="off2 on off" ;;
	4) order="off2 off on" ;;
	5) order="off on off2" ;;
	0) order="on off2 off" ;;
	esac
	for arm in $order; do
		[ "$arm" = on ] && echo 50 >$p/slice_ext_us || echo 0 >$p/slice_ext_us
		log=/tmp/cost-$b-$arm.log
		l2_start "$log" bzImage-pvple host,-xsave \
			"l2.cost=1 locktorture.torture_type=none" -smp 2
		l2_wait "$log" 600
		if grep -q 'pvple: ending extended sections' "$log"; then
			key=on
		elif grep -q 'pvple: the host extends no time slices' "$log"; then
			key=off
		else
			key=none
		fi
		want=off
		[ "$arm" = on ] && want=on
		if [ "$key" != "$want" ]; then
			echo "# block $b arm $arm: the guest's key is $key, not $want"
			bad_key=$((bad_key + 1))
		fi
		pairs=$(sed -n 's/^L2-COST round 0 pairs \([0-9]*\) .*/\1/p' "$log")
		rounds=$(sed -n 's/^L2-COST round [0-9]* pairs [0-9]* ns \([0-9]*\) ref \([0-9]*\).*/\1:\2/p' "$log" |
			 tr '\n' ' ')
		if [ -z "$rounds" ]; then
			echo "# block $b arm $arm: no rounds timed; the end of its console:"
			tail -n 15 "$log" | sed 's/^/#   /'
			bad_run=$((bad_run + 1))
		fi
		echo "# cost block=$b arm=$arm key=$key secs=$t pairs=${pairs:-0} rounds=$rounds"
	done
	b=$((b + 1))
done
echo "$us0" >$p/slice_ext_us
keeper_stop
tap_result "$bad_key" "unlock cost: the guest's key follows the host's answer in every boot"
tap_result "$bad_run" "unlock cost: every boot timed its rounds"
[ "$tap_failed" = 0 ]
