#!/bin/bash
# "make bench": boots the test host with the bench plan and prints the
# table "metric pvple stock ratio" that pvple_bench measured side by side in
# that one boot.  The same rows go to a file named on the last line, so that
# a later run can be compared with this one.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
"$PVPLE_TOP/scripts/testhost/prepare.sh" || die "prepare failed"
"$PVPLE_TOP/scripts/testhost/build.sh" || die "build failed"
pvple_resolve_versions
out=$WORK/bench
mkdir -p "$out"
# One L1 CPU by default: single-threaded TCG runs every L1 CPU on one host
# thread in turn, so two L1 CPUs are not concurrent in real time and L1's
# scheduler would be measuring the emulator.  With one, every vCPU beyond
# the first is real overcommit, scheduled by L1's own kernel.
PVPLE_L1_SMP=${PVPLE_L1_SMP:-1} PVPLE_TIME_LIMIT=${PVPLE_TIME_LIMIT:-3600} \
	"$PVPLE_TOP/scripts/testhost/boot.sh" bench "$out/l1" \
	${PVPLE_BENCH_PARAMS:+pvple.bench_params=$PVPLE_BENCH_PARAMS} >"$out/verdict" 2>&1
rc=$?
table=$out/bench-$(date +%Y%m%d-%H%M%S).txt
sed -n '/^PVPLE-TEST bench/,/^PVPLE-EXIT/p' "$out/l1/results.tap" |
	grep -v '^PVPLE-' | grep -v '^PVPLE-BENCH-TABLE' >"$table.log"
sed -n '/^PVPLE-BENCH-TABLE/,/^PVPLE-EXIT/p' "$out/l1/results.tap" |
	grep -v '^PVPLE-' >"$table"
echo
grep -v '^[a-zA-Z ]*[ ]\{3,\}' "$table.log" | head -n 5
cat "$table"
echo
if [ "$rc" != 0 ] || [ ! -s "$table" ]; then
	cat "$out/verdict"
	die "the bench boot failed; logs in $out"
fi
echo "bench rows written to $table"
