#!/bin/bash
# "make selfcheck": proves that "make check" can fail.  Each case runs the
# whole of check.sh on a copy of this tree with one fault put in, and
# passes only if check.sh exits non-zero with at least one failure counted:
#   build      a compile error in kvm-pvple
#   selftest   a selftest assertion made false
#   warn       an L1 kernel WARNING (a fixture module that WARNs on load)
#   lockdep    a lockdep report in the debug L1 kernel (make check-debug;
#              a fixture module that takes two locks in both orders; one
#              selftest only, as the debug kernel is slow under TCG)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
"$PVPLE_TOP/scripts/testhost/prepare.sh" || die "prepare failed"
pvple_resolve_versions

cases=${*:-build selftest warn lockdep}
n=0 failed=0
echo "TAP version 13"
echo "1..$(wc -w <<<"$cases")"
for c in $cases; do
	n=$((n + 1))
	tree=$WORK/selfcheck/$c
	rm -rf "$tree"
	mkdir -p "$tree"
	git -C "$PVPLE_TOP" ls-files -z | (cd "$PVPLE_TOP" && xargs -0 cp --parents -t "$tree")
	boot_args= l1= plan=check expect=
	case $c in
	build)
		echo '#error fault injected by selfcheck' >>"$tree/kvm-pvple/main.c" ;;
	selftest)
		sed -i 's/ASSERT_EQ(c.hc_probe, NR_VCPUS);/ASSERT_EQ(c.hc_probe, NR_VCPUS + 1);/' \
			"$tree/selftests/kvm/pvple_hooks_test.c"
		grep -q 'NR_VCPUS + 1' "$tree/selftests/kvm/pvple_hooks_test.c" ||
			die "selftest fault did not apply" ;;
	warn)
		boot_args="pvple.inject=warn" expect=pvple_warn_fixture ;;
	lockdep)
		boot_args="pvple.inject=lockdep" l1=debug plan=quick
		expect="possible circular locking dependency" ;;
	*) die "unknown case $c" ;;
	esac
	PVPLE_OUT=$WORK/selfcheck/$c-out PVPLE_BOOT_ARGS=$boot_args PVPLE_DKMS_CHECK=0 \
		PVPLE_L1=$l1 PVPLE_PLAN=$plan "$tree/scripts/testhost/check.sh" >"$WORK/selfcheck/$c.log" 2>&1
	rc=$?
	summary=$(tail -n1 "$WORK/selfcheck/$c.log")
	nfail=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed.*/\1/p' <<<"$summary")
	# It must fail for the fault put in, not for anything else.
	if [ "$rc" != 0 ] && [ "${nfail:-0}" -gt 0 ] &&
	   { [ -z "$expect" ] || grep -q "$expect" "$WORK/selfcheck/$c.log"; }; then
		echo "ok $n selfcheck: $c fault fails make check ($summary)"
	else
		echo "not ok $n selfcheck: $c fault did not fail make check (rc $rc: $summary)"
		failed=$((failed + 1))
	fi
done
[ "$failed" = 0 ]
