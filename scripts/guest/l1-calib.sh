#!/bin/sh
# Runs inside the test host (L1): the emulator's factor, kind by kind
# (scripts/guest/calib.c).  Runs calib in L1, then in a nested guest of
# the Linux-guest bench's setup (the stock kernel, GB_VCPUS' default of 4
# vCPUs, -cpu host,-xsave, 768M), on an idle L1.  Lines
# "# calib LEVEL KIND NS" for the analysis on the machine under the test
# host (scripts/guest/calib.awk).  TAP: each level timed every kind.
. "$(dirname "$0")/l1-lib.sh"
reps=${CALIB_REPEATS:-5}
kinds="int ladd pair l2read rand8m syscall cpuid"

echo "TAP version 13"
echo "1..2"
has_all() {
	for k in $kinds; do
		grep -q "^# calib $1 $k " /tmp/calib.txt || return 1
	done
}
: >/tmp/calib.txt
/pvple/bin/calib "$reps" | sed 's/^calib /# calib l1 /' >>/tmp/calib.txt
has_all l1
tap_result $? "calib: every kind timed in L1"

keeper_start
log=/tmp/calib-l2.log
L2_MEM=768M l2_start "$log" bzImage-stock host,-xsave \
	"l2.calib=$reps locktorture.torture_type=none" -smp 4
l2_wait "$log" 900
keeper_stop
sed -n 's/^L2-CALIB /# calib l2 /p' "$log" | tr -d '\r' >>/tmp/calib.txt
has_all l2
rc=$?
[ "$rc" = 0 ] || tail -n 15 "$log" | sed 's/^/# l2: /'
cat /tmp/calib.txt
tap_result $rc "calib: every kind timed in a nested guest"
[ "$tap_failed" = 0 ]
