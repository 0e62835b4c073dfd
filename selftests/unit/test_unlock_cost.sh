#!/bin/bash
# Unit tests of the unlock bench's table (scripts/guest/unlock-cost.awk):
# each boot's index (the median over rounds, the first dropped, of the
# lock pairs' time over the reference loop's), paired ratios over blocks,
# the A/A row, and the verdict.  Expected figures from an independent
# computation.  TAP output.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
TAP_PREFIX=unlock-cost
. "$top/scripts/tap.sh"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
table() {
	awk -f "$top/scripts/guest/gb-stats.awk" \
	    -f "$top/scripts/guest/unlock-cost.awk" "$tmp"
}
echo "TAP version 13"
echo "1..6"

# line BLOCK ARM KEY I: a boot with a slow first round, then three rounds
# of reference 50 ns a pair whose indexes are 1.9, I and 2.3 (the
# median, I).  Rounds of 1000 pairs: a round's time is I * 50000 ns.
line() {
	echo "# cost block=$1 arm=$2 key=$3 secs=9 pairs=1000 rounds=900000:1000 95000:50000 $(($4 * 50)):50000 115000:50000"
}
# I in thousandths: off 2.000; off2 1.996, 2.002, 2.008; on 2.190,
# 2.200, 2.210.
for b in 1 2 3; do
	line $b off off 2000
	line $b off2 off $((1990 + b * 6))
	line $b on on $((2180 + b * 10))
done >"$tmp"
out=$(table)
grep -Eq '^off +off +3  100\.000 \(100\.000-100\.000\) +50\.000 \(50\.000-50\.000\) +2\.000 \(2\.000-2\.000\)$' <<<"$out"
tap_result $? "each boot's medians: the first round dropped"
grep -Eq '^on / off \(the cost\) +3  1\.100 \[1\.088, 1\.112\]$' <<<"$out"
tap_result $? "the paired ratio of the index, t on 2 df"
grep -Eq '^off2 / off \(A/A\) +3  1\.001 \[0\.994, 1\.008\]$' <<<"$out"
tap_result $? "the A/A row"
grep -q '^verdict: the key.s effect, +10.0 %' <<<"$out"
tap_result $? "an effect beyond the A/A row's reach is one"
# A noisy A/A row: off2's index 1.92, 2.00, 2.08 in turn (+-4 %).
for b in 1 2 3; do
	sed -i "/block=$b arm=off2/c\\$(line $b off2 off $((1840 + b * 80)))" "$tmp"
done
out=$(table)
grep -q '^verdict: no claim: the A/A interval reaches 10.5 %' <<<"$out"
tap_result $? "no claim where the A/A interval reaches past the effect"
: >"$tmp"
table >/dev/null
[ $? = 1 ]
tap_result $? "no timed boot: no table, and a failure"
[ "$tap_failed" = 0 ]
