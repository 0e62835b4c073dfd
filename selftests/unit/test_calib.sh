#!/bin/bash
# Unit tests of the emulator's factor table (scripts/guest/calib.awk): per
# boot the median of each level's repeats over L0's, over boots the median
# factor and its range.  TAP output.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
TAP_PREFIX=calib
. "$top/scripts/tap.sh"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
table() {
	awk -f "$top/scripts/guest/gb-stats.awk" -f "$top/scripts/guest/calib.awk" "$tmp"
}
echo "TAP version 13"
echo "1..4"
# Three boots.  pair: L0 10 ns (repeats 9, 10, 50: the median, 10), L1
# 20, 30, 25 ns by boot, L2 40 ns each; cpuid: L0 1000 ns, L2 30000,
# 60000, 24000 ns, and no L1 line.
for b in 1 2 3; do
	for v in 9 10 50; do echo "# calib boot=$b l0 pair $v"; done
	echo "# calib boot=$b l1 pair $(( b == 1 ? 20 : b == 2 ? 30 : 25 ))"
	echo "# calib boot=$b l2 pair 40"
	echo "# calib boot=$b l0 cpuid 1000"
	echo "# calib boot=$b l2 cpuid $(( b == 1 ? 30000 : b == 2 ? 60000 : 24000 ))"
done >"$tmp"
out=$(table)
grep -Eq '^pair +10\.00  2\.5 \(2\.0-3\.0\) +4\.0 \(4\.0-4\.0\) +3$' <<<"$out"
tap_result $? "pair: the median factor over boots and its range, L0's median repeat"
grep -Eq '^cpuid +1000\.00  - +30\.0 \(24\.0-60\.0\) +3$' <<<"$out"
tap_result $? "cpuid: no L1 line, no L1 factor"
# One boot without L0: its factors are not taken.
sed -i '/boot=3 l0 /d' "$tmp"
out=$(table)
grep -Eq '^pair +10\.00  2\.5 \(2\.0-3\.0\) +4\.0 \(4\.0-4\.0\) +2$' <<<"$out"
tap_result $? "a boot without L0 times gives no factor"
: >"$tmp"
table >/dev/null
[ $? = 1 ]
tap_result $? "no calibration: no table, and a failure"
[ "$tap_failed" = 0 ]
