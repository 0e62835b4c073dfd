#!/bin/sh
# Runs inside the test host (L1) for "make bench": what a virtual L3 does
# to a wake-up-heavy nested Linux guest (L2, 1 socket x 4 cores).  Three
# configurations, alternated in one boot, L3_ROUNDS times:
#   none   QEMU l3-cache=off, kvm-pvple l3_cache=off: no L3 anywhere
#   pvple  QEMU l3-cache=off, kvm-pvple l3_cache=auto: pvple's L3
#   qemu   QEMU l3-cache=on,  kvm-pvple l3_cache=auto: the VMM's own L3
#          (auto must leave it alone: counted as l3_kept)
# Per run: the guest's view (index3/shared_cpu_list), the l2-wake time,
# guest IPIs (RES + CAL, from its /proc/interrupts) and the VM's exits as
# L1's KVM counts them, over the l2-wake window only.  TAP; each run's
# figures are one "# NAME: index3=..." line, which scripts/testhost/bench.sh
# sums up (also when a later run of the boot failed).
. "$(dirname "$0")/l1-lib.sh"
wake=${L3_WAKE:-pipe:2:4000}
rounds=${L3_ROUNDS:-5}
exits=/sys/kernel/debug/kvm/exits
vms=/sys/kernel/debug/kvm-pvple/vms
param=/sys/module/kvm_pvple/parameters/l3_cache

echo "TAP version 13"
echo "1..$((rounds * 3))"

keeper_start

# run NAME QEMU_L3 MODULE_L3
run() {
	name=$1 log=/tmp/l3-$1.log
	echo "$3" >"$param" || return 1
	l2_start "$log" bzImage-stock host,-xsave,l3-cache="$2" \
		"l2.wake=$wake locktorture.torture_type=none" \
		-smp 4,sockets=1,cores=4,threads=1 2>>/tmp/l3-qemu.err
	e0= e1= t=0 counts=
	while kill -0 "$qpid" 2>/dev/null; do
		sleep 0.2
		t=$((t + 1))
		[ -z "$e0" ] && grep -q '^L2-WAKE-BEGIN' "$log" && e0=$(cat $exits)
		[ -z "$e1" ] && grep -q '^L2-WAKE-END' "$log" && e1=$(cat $exits)
		line=$(grep "^$qpid-" "$vms")
		[ -n "$line" ] && counts=$line
		grep -q '^L2-END' "$log" && kill "$qpid"
		if [ "$t" -ge 3000 ]; then
			echo "# $name: L2 still running after 600 s: killed"
			kill -9 "$qpid"
		fi
	done
	wait "$qpid"
	llc=$(sed -n 's/^L2-LLC index3=\([^ ]*\).*/\1/p' "$log")
	set -- $(sed -n 's/^L2-WAKE passes=\([0-9]*\) secs=\([0-9.]*\) ok=1 res=\([0-9]*\) cal=\([0-9]*\).*/\1 \2 \3 \4/p' "$log")
	l3=$(echo "$counts" | grep -o 'l3_[a-z_]*=[1-9][0-9]*' | tr '\n' ' ')
	if [ $# != 4 ] || [ -z "$e0" ] || [ -z "$e1" ]; then
		echo "# $name: no result; the end of its console:"
		tail -n 20 "$log" | sed "s/^/# $name: /"
		return 1
	fi
	echo "# $name: index3=$llc passes=$1 secs=$2 res=$3 cal=$4 exits=$((e1 - e0)) $l3"
	[ "$i" = 1 ] && grep '^L2-CPUID' "$log" | sed "s/^/# $name: /"
	# The configuration must have done what it says.
	case $name in
	none) [ "$llc" = none ] ;;
	pvple) [ "$llc" = 0-3 ] && echo "$l3" | grep -q l3_added ;;
	qemu) [ "$llc" = 0-3 ] && echo "$l3" | grep -q l3_kept ;;
	esac
}

i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	run none off off
	tap_result $? "round $i: no L3: the guest sees none"
	run pvple off auto
	tap_result $? "round $i: kvm-pvple l3_cache=auto: one L3 for cpus 0-3"
	run qemu on auto
	tap_result $? "round $i: QEMU l3-cache=on: its L3 kept by auto"
done
keeper_stop
echo auto >"$param"

[ "$tap_failed" = 0 ]
