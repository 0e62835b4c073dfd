#!/bin/bash
# classify.sh CONSOLE_LOG RESULTS_TAP [WALL_SECS]
#
# Judges one boot of the test host.  Prints each test result, then one line
#   pvple-counts: PASSED FAILED SKIPPED
# and exits 0 (clean), 1 (failed) or 2 (a known emulator signature, and no
# failure it does not explain: the caller may retry once, and must say so).
# WALL_SECS is how long the boot took on the host's clock.
set -u
console=$1 results=$2 wall=${3:-}

# Any of these in the L1 kernel log fails the run, whatever the tests said.
KERNEL_FAIL='WARNING:|BUG:|Oops|general protection fault|Kernel panic|kernel BUG at|blocked for more than [0-9]+ seconds|rcu: INFO:|self-detected stall|detected stalls|soft lockup|hard LOCKUP|UBSAN:|KASAN:|ODEBUG:|INFO: trying to register non-static key'
# Documented emulator fault (Documentation/testhost.rst): multi-threaded TCG
# can leave a stale int3 after kernel text patching.  Only these exact sites
# were proven to be the emulator; any other int3 oops is a real failure.
EMULATOR_SIG='Oops: int3'
EMULATOR_RIP='RIP: 0010:(__schedule|apic_has_pending_timer)\+'
# Documented emulator fault (testhost.rst, "The emulator's clock jumps"):
# TCG's TSC is the L0 machine's raw TSC (cpu_get_ticks_locked() adds
# cpu_get_host_ticks()), which L0's own kernel runs with tsc=unstable and
# which can leap forward by hours.  L1's TSC, its clocks and every timer
# leap with it.  L1 started after the boot's wall clock did, so a kernel
# log timestamp later than WALL_SECS + CLOCK_SLACK is that leap.  What a
# leap alone makes L1 print: soft lockups, RCU stalls, hung tasks.
CLOCK_SLACK=30
CLOCK_EXPLAINS='soft lockup|rcu: INFO:|self-detected stall|detected stalls|blocked for more than [0-9]+ seconds'

awk '
function result(line) { print "  " section ": " line }
/^PVPLE-TEST / { section = $2; seen[section] = 0; bad[section] = 0; next }
/^PVPLE-TIMEOUT / { print "  " $2 ": time-out after " $3; timeouts++; next }
/^PVPLE-EXIT / {
	if ($3 != 0 && !bad[$2]) {
		print "  " $2 ": not ok - exited with status " $3 " (no failing case reported)"
		failed++
	}
	section = ""; next
}
/^PVPLE-END/ { ended = 1; next }
/^Bail out!/ { print "  " $0; failed++; next }
section != "" && /^not ok / { result($0); failed++; bad[section] = 1; next }
section != "" && /^ok / {
	result($0)
	if ($0 ~ /# SKIP/) skipped++; else passed++
	next
}
END {
	if (!ended) { print "  L1: did not finish its plan (crash, hang or time-out)"; failed++ }
	printf "pvple-counts: %d %d %d\n", passed, failed, skipped
}' "$results" >"$results.verdict"
grep -v '^pvple-counts:' "$results.verdict"
read -r _ passed failed skipped < <(grep '^pvple-counts:' "$results.verdict")
rc=0

jumped=
l1_secs=$(grep -aoE '^\[ *[0-9]+\.' "$console" | tr -dc '0-9\n' | sort -n | tail -n 1)
if [ -n "$wall" ] && [ -n "$l1_secs" ] && [ "$l1_secs" -gt $((wall + CLOCK_SLACK)) ]; then
	echo "  L1: clock jumped: its kernel log reaches ${l1_secs} s in a boot of" \
	     "${wall} s on the host's clock (the emulator's TSC leapt)"
	jumped=1
fi

# The clocksource watchdog may find L1's TSC skewed against the emulated
# HPET and mark it unstable; with tsc=reliable (bench boots, bench.sh) it
# does not check the TSC, but KVM can still find a TSC that went back
# (kvm_arch_vcpu_load(): "Marking TSC unstable due to KVM discovered
# backwards TSC").  From then on KVM runs L1's guests in another regime:
# kvm_arch_vcpu_load() sets each vCPU's TSC offset on every load so that
# its TSC resumes from the last value the guest saw, and
# pvclock_update_vm_gtod_copy() keeps no master clock.  Nothing fails,
# but a benchmark straddling it measures two machines: say when.
unstable=$(grep -a -m 1 "Marking clocksource 'tsc' as unstable\|Marking TSC unstable due to" "$console" |
	sed -n 's/^\[ *\([0-9]*\)\..*/\1/p')
[ -z "$unstable" ] ||
	echo "  L1: its TSC was marked unstable at ${unstable} s: KVM's guests ran in two clock regimes"

# A leap of the clock ends windows, deadlines and time-outs early: every
# result of such a boot is suspect, whether it passed or failed, so it
# counts one failure even when every test passed: a retry that leaps
# again fails the run.  -a: a NUL byte in the log must not hide a line.
clock_only=
if grep -aEq "$KERNEL_FAIL" "$console"; then
	echo "  L1 kernel log:"
	grep -aE -m 8 "$KERNEL_FAIL" "$console" | sed 's/^/    /'
	if grep -aq "$EMULATOR_SIG" "$console" && grep -aEq "$EMULATOR_RIP" "$console" &&
	   [ "$(grep -aEc "$KERNEL_FAIL" "$console")" -le "$(grep -aEc 'Oops: int3|Fatal exception|Kernel panic' "$console")" ]; then
		echo "  L1 kernel log matches the documented emulator signature (stale int3)"
		rc=2
	elif [ -n "$jumped" ] &&
	     ! grep -aE "$KERNEL_FAIL" "$console" | grep -aEvq "$CLOCK_EXPLAINS"; then
		rc=2 clock_only=1
	else
		rc=1
	fi
	failed=$((failed + 1))
elif [ -n "$jumped" ]; then
	rc=2 clock_only=1
	failed=$((failed + 1))
fi
[ -z "$clock_only" ] ||
	echo "  L1: nothing failed that the clock jump does not explain (documented emulator signature)"
[ "$failed" -eq 0 ] || [ "$rc" -ne 0 ] || rc=1
echo "pvple-counts: $passed $failed $skipped"
exit $rc
