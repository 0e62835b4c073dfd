#!/bin/bash
# "make demo": prepares and builds like "make check", boots the test host
# once with the demo plan, and prints what kvm-pvple observed of a small
# contended guest.  Fails if the L1 kernel logged a WARNING, oops, etc.
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
if [ "$rc" != 0 ]; then
	cat "$out.verdict"
	die "the demo boot failed; logs in $out"
fi
log "logs in $out"
