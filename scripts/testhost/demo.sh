#!/bin/bash
# "make demo": prepares and builds like "make check", boots the test host
# once with the demo plan, and prints what kvm-pvple observed of a small
# contended guest, and the emulator's measured factor.  Fails if the L1 kernel logged a WARNING, oops, etc.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
"$PVPLE_TOP/scripts/testhost/prepare.sh" || die "prepare failed"
"$PVPLE_TOP/scripts/testhost/build.sh" || die "build failed"
pvple_resolve_versions
out=$WORK/demo
"$PVPLE_TOP/scripts/testhost/boot.sh" demo "$out" >"$out.verdict" 2>&1
rc=$?
echo
sed -n '/^PVPLE-TEST demo/,/^PVPLE-EXIT/p' "$out/results.tap" | grep -v '^PVPLE-'
echo
sed -n '/^PVPLE-TEST pvple-stat/,/^PVPLE-EXIT/p' "$out/results.tap" | grep -v '^PVPLE-'
echo
# What a time on this test host means on hardware: the emulator's factor
# as last measured (make bench, PVPLE_BENCH_ONLY=factor; testhost.rst,
# "The emulator's factor"), kept with its raw data in the tree.
factor=$(ls "$PVPLE_TOP"/Documentation/results/data/factor-*.table 2>/dev/null | tail -n 1)
if [ -n "$factor" ]; then
	echo "Times above are the emulator's.  $(basename "$factor"):"
	sed -n '/^kind /,$p' "$factor"
	# One exit round trip at its own factor, the rest at a lock pair's.
	awk '$1 == "cpuid" { hw = $2 / 1000; emu = hw * $5 }
	     $1 == "pair" { f = $5 }
	     END { if (hw && f) printf "(a bound of B us of hardware is about %.0f + %.1f (B - %.1f) us here)\n", emu, f, hw }' "$factor"
	echo
fi
if [ "$rc" != 0 ]; then
	cat "$out.verdict"
	die "the demo boot failed; logs in $out"
fi
log "logs in $out"
