#!/bin/bash
# Unit tests of scripts/testhost/classify.sh, the judge of a test-host boot:
# which logs pass, which fail, and which alone may be retried.  TAP output.
set -u
classify=$(cd "$(dirname "$0")/../.." && pwd)/scripts/testhost/classify.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

clean_results='PVPLE-BEGIN plan=check
PVPLE-TEST hooks
TAP version 13
1..3
ok 1 pvple.a
ok 2 pvple.b
ok 3 pvple.c # SKIP no PLE
PVPLE-EXIT hooks 0
PVPLE-END rc=0'
clean_console='[    1.0] Linux version 6.12
[    2.0] pvple: heartbeat'

# case NAME WANT_RC WANT_COUNTS CONSOLE RESULTS [WALL_SECS]
case_() {
	local name=$1 want_rc=$2 want_counts=$3 rc counts
	printf '%s\n' "$4" >"$tmp/console.log"
	printf '%s\n' "$5" >"$tmp/results.tap"
	"$classify" "$tmp/console.log" "$tmp/results.tap" ${6:+"$6"} >"$tmp/out" 2>&1
	rc=$?
	counts=$(sed -n 's/^pvple-counts: //p' "$tmp/out")
	n=$((n + 1))
	if [ "$rc" = "$want_rc" ] && [ "$counts" = "$want_counts" ]; then
		echo "ok $n classify: $name"
	else
		echo "not ok $n classify: $name (rc $rc counts '$counts'," \
		     "want rc $want_rc counts '$want_counts')"
		sed 's/^/# /' "$tmp/out"
		failed=$((failed + 1))
	fi
}

# int3_at T: the documented stale-int3 oops, logged at T seconds.
int3_at() {
	printf '[%s] %s\n' "$1" 'Oops: int3: 0000 [#1] PREEMPT SMP NOPTI' \
		"$1" 'RIP: 0010:__schedule+0x428/0x1230' \
		"$1" 'Kernel panic - not syncing: Fatal exception in interrupt'
}
cut_results='PVPLE-BEGIN plan=check
PVPLE-TEST hooks'

# tap_ NAME STATUS: one TAP line for a check made by hand.
tap_() {
	n=$((n + 1))
	if [ "$2" = 0 ]; then
		echo "ok $n classify: $1"
	else
		echo "not ok $n classify: $1"
		failed=$((failed + 1))
	fi
}

echo "TAP version 13"
echo "1..25"
case_ "clean run" 0 "2 0 1" "$clean_console" "$clean_results"
case_ "a failing case" 1 "1 1 1" "$clean_console" \
	"${clean_results/ok 2 pvple.b/not ok 2 pvple.b}"
case_ "L1 WARNING fails a green run" 1 "2 1 1" \
	"$clean_console
[    3.0] WARNING: CPU: 1 PID: 7 at kvm-pvple/vm.c:10 foo+0x1/0x2" "$clean_results"
case_ "hung task fails" 1 "2 1 1" \
	"$clean_console
[  130.0] INFO: task pvple_hooks_tes:88 blocked for more than 60 seconds." \
	"$clean_results"
case_ "documented emulator int3 is retryable" 2 "0 2 0" \
	"$clean_console
$(int3_at '    5.0')" "$cut_results"
case_ "int3 elsewhere is a real failure" 1 "0 2 0" \
	"$clean_console
[    5.0] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
[    5.0] RIP: 0010:pvple_on_spin+0x10/0x80 [kvm_pvple]" \
	"PVPLE-BEGIN plan=check
PVPLE-TEST hooks"
case_ "int3 plus a WARNING is not retried" 1 "0 2 0" \
	"$clean_console
[    4.0] WARNING: CPU: 0 PID: 1 at x.c:1 y+0x0/0x1
[    5.0] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
[    5.0] RIP: 0010:__schedule+0x428/0x1230" \
	"PVPLE-BEGIN plan=check
PVPLE-TEST hooks"
case_ "crash without a failing case" 1 "2 1 1" "$clean_console" \
	"${clean_results/PVPLE-EXIT hooks 0/PVPLE-EXIT hooks 139}"
case_ "time-out and no end" 1 "1 2 0" "$clean_console" \
	"PVPLE-BEGIN plan=check
PVPLE-TEST hooks
ok 1 pvple.a
PVPLE-TIMEOUT hooks 600s
PVPLE-EXIT hooks 137"

# The CI boot of 2026-12-03 (check-debug): the emulator's TSC leapt
# 24654 s during the fuzz test, 326 s into the boot on the host's clock.
jump_console="$clean_console
[  224.1] clocksource: Long readout interval, skipping watchdog check: cs_nsec: 1453522978 wd_nsec: 1453514730
[24914.198810] watchdog: BUG: soft lockup - CPU#0 stuck for 22962s! [pvple_fuzz_test:341]
[24914.271389] watchdog: BUG: soft lockup - CPU#1 stuck for 22962s! [kworker/1:2:35]"
jump_results="PVPLE-BEGIN plan=check
PVPLE-TEST fuzz
TAP version 13
1..1
# hostile_guest: Test terminated by timeout
not ok 1 fuzz.hostile_guest
PVPLE-EXIT fuzz 1
PVPLE-END rc=0"
case_ "a clock jump explains soft lockups and a time-out: retryable" 2 "0 2 0" \
	"$jump_console" "$jump_results" 326
case_ "the same boot, wall clock unknown, fails" 1 "0 2 0" \
	"$jump_console" "$jump_results"
case_ "soft lockups within the wall clock fail" 1 "0 2 0" \
	"$jump_console" "$jump_results" 24900
case_ "a clock jump does not excuse a WARNING" 1 "0 2 0" \
	"$jump_console
[24914.3] WARNING: CPU: 0 PID: 341 at kvm-pvple/park.c:10 x+0x1/0x2" "$jump_results" 326
case_ "a clock jump does not excuse an oops" 1 "0 2 0" \
	"$jump_console
[24914.3] BUG: kernel NULL pointer dereference, address: 0000000000000008" \
	"$jump_results" 326
case_ "a green boot whose clock jumped is retried, and counts a failure" 2 "2 1 1" \
	"$clean_console
[  900.0] pvple: heartbeat" "$clean_results" 100
case_ "a log 30 s past the wall clock is no jump" 0 "2 0 1" \
	"$clean_console
[  130.9] pvple: heartbeat" "$clean_results" 100
case_ "a log 31 s past the wall clock is a jump" 2 "2 1 1" \
	"$clean_console
[  131.0] pvple: heartbeat" "$clean_results" 100
case_ "a clock jump explains RCU stalls and a hung task" 2 "0 2 0" \
	"$jump_console
[24920.0] rcu: INFO: rcu_preempt self-detected stall on CPU
[24921.0] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
[24922.0] INFO: task kworker/0:1:12 blocked for more than 60 seconds." "$jump_results" 326
# A NUL byte makes grep call the log binary: it must still see the WARNING.
{ printf '%s\n' "$jump_console" "[24914.3] WARNING: CPU: 0 PID: 341 at kvm-pvple/park.c:10 x+0x1/0x2"
  printf 'x\000y\n'; } >"$tmp/console.log"
printf '%s\n' "$jump_results" >"$tmp/results.tap"
"$classify" "$tmp/console.log" "$tmp/results.tap" 326 >"$tmp/out" 2>&1
[ $? = 1 ] && grep -aq 'WARNING: CPU: 0 PID: 341' "$tmp/out"
tap_ "a NUL byte in the log hides no WARNING" $?
case_ "the stale int3 after a clock jump is still the int3's" 2 "0 2 0" \
	"$clean_console
$(int3_at 24915.0)" "$cut_results" 326
! grep -q 'clock jump does not explain' "$tmp/out"
tap_ "... and not called the clock's (no retry as a stopped L1)" $?
# The clocksource watchdog's line, as L1 logged it in a bench boot: a note
# with the time, and a green boot stays green.
case_ "a TSC marked unstable leaves a green boot green" 0 "2 0 1" \
	"$clean_console
[  439.869336] clocksource: timekeeping watchdog on CPU1: Marking clocksource 'tsc' as unstable because the skew is too large:
[  439.871445] clocksource:                       Clocksource 'tsc' skewed 520671 ns (0 ms) over watchdog 'hpet' interval of 511471890 ns (511 ms)" \
	"$clean_results" 600
grep -q "L1: its TSC was marked unstable at 439 s" "$tmp/out"
tap_ "... and says when it was marked" $?
# With tsc=reliable the watchdog leaves the TSC alone, but KVM can still
# mark it unstable (kvm_arch_vcpu_load(), a TSC that went back).
case_ "KVM marking the TSC unstable is said too" 0 "2 0 1" \
	"$clean_console
[  512.3] tsc: Marking TSC unstable due to KVM discovered backwards TSC" "$clean_results" 600
grep -q "L1: its TSC was marked unstable at 512 s" "$tmp/out"
tap_ "... with when" $?
[ "$failed" = 0 ]
