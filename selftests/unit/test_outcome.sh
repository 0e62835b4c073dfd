#!/bin/bash
# Unit tests of pvple_guest_outcome (scripts/testhost/lib.sh): how one boot
# of nested Linux guests ended, which decides what "make guest-check"
# retries, reports as skipped (the emulator stopped) or fails.  TAP output.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/testhost/lib.sh"
TAP_PREFIX=outcome
. "$top/scripts/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tap_end='# patched: L2-END
ok 1 patched guest with kvm-pvple'
tap_cut='# patched: [    3.1] smpboot: CPU0: AMD'
stall='  L1 kernel log:
    [  300.1] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
    [  363.2] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:'

# case NAME WANT RC VERDICT [RESULTS-TAP, or - for none]
case_() {
	local name=$1 want=$2 rc=$3 got
	printf '%s\n' "$4" >"$tmp/verdict"
	rm -f "$tmp/tap"
	[ "${5--}" = - ] || printf '%s\n' "$5" >"$tmp/tap"
	got=$(pvple_guest_outcome "$rc" "$tmp/verdict" "$tmp/tap")
	[ "$got" = "$want" ]
	tap_result $? "$name${got:+ (got '$got', want '$want')}"
}

echo "TAP version 13"
echo "1..19"
case_ "a clean boot" clean 0 "pvple-counts: 1 0 0" "$tap_end"
case_ "silent L1" l1-stopped 1 "  L1: hang: no L1 console output for 90s
  L1: did not finish its plan (crash, hang or time-out)" "$tap_cut"
case_ "L1 time-out" l1-stopped 1 "  L1: time-out: L1 ran longer than 1200s" "$tap_cut"
case_ "a CPU stopped, RCU stall reports only" l1-stopped 1 \
	"  L1: hang: an L1 CPU stopped (RCU stall reported 3 times, its NMI never answered)
$stall
pvple-counts: 0 1 0" "$tap_cut"
case_ "RCU stall reports without the stopped-CPU verdict" failed 1 \
	"  L1: hang: no L1 console output for 90s
$stall" "$tap_cut"
case_ "a CPU stopped, and a WARNING" failed 1 \
	"  L1: hang: an L1 CPU stopped (RCU stall reported 3 times, its NMI never answered)
$stall
    [  301.0] WARNING: CPU: 1 PID: 7 at kvm-pvple/park.c:10 x+0x1/0x2" "$tap_cut"
case_ "a guest vanished without a word" l2-vanished 1 \
	"  guest: not ok 1 patched guest with kvm-pvple" "$tap_cut"
case_ "a guest that died with a BUG" failed 1 \
	"  guest: not ok 1 patched guest with kvm-pvple" "$tap_cut
# patched: [    9.0] BUG: kernel NULL pointer dereference"
case_ "a test failure after the guest ended" failed 1 \
	"  guest: not ok 1 patched guest with kvm-pvple" "$tap_end"
case_ "L1 reset without a word" l1-stopped 1 \
	"  L1: reset before the end of its plan, a triple fault (QEMU's state: x/reset.txt)
  L1: did not finish its plan (crash, hang or time-out)" "$tap_cut"
case_ "L1 reset after a panic" failed 1 \
	"  L1: reset before the end of its plan (QEMU's state: x/reset.txt)
  L1 kernel log:
    [   40.2] Kernel panic - not syncing: Fatal exception" "$tap_cut"
case_ "no boot to judge" failed 1 "  L1: hang: no L1 console output for 90s" -

# classify.sh's own words on a boot whose clock jumped (test_classify.sh).
printf '%s\n' "[   1.0] Linux version 6.12" \
	"[9000.0] watchdog: BUG: soft lockup - CPU#0 stuck for 8000s! [a:1]" \
	>"$tmp/console.log"
printf '%s\n' "PVPLE-BEGIN plan=guest" "PVPLE-TEST guest" >"$tmp/results.tap"
jump=$("$top/scripts/testhost/classify.sh" "$tmp/console.log" "$tmp/results.tap" 300)
case_ "a clock jump and the lockups it explains" l1-stopped 2 "$jump" "$tap_cut"
printf '%s\n' "[9000.1] WARNING: CPU: 0 PID: 1 at x.c:1 y+0x0/0x1" >>"$tmp/console.log"
jump=$("$top/scripts/testhost/classify.sh" "$tmp/console.log" "$tmp/results.tap" 300)
case_ "a clock jump and a WARNING" failed 1 "$jump" "$tap_cut"

# A bench boot: retried when L1 stopped and the plan reported nothing, or
# when the clock leapt, whatever the plan reported (guests-20261203-172417:
# a hackbench window of 158 s, the stopped guest's lockup reports).
# bench_retry NAME WANT VERDICT [RESULTS-TAP]
bench_retry() {
	printf '%s\n' "$3" >"$tmp/verdict"
	rm -f "$tmp/tap"
	[ -z "${4:-}" ] || printf '%s\n' "$4" >"$tmp/tap"
	pvple_bench_retry "$tmp/verdict" guestbench "$tmp/tap"
	[ $? = "$2" ]
	tap_result $? "$1"
}
bench_retry "bench: the clock leapt and the plan failed: retried" 0 \
	"  guestbench: not ok - exited with status 1 (no failing case reported)
  L1: clock jumped: its kernel log reaches 1023 s in a boot of 885 s on the host's clock (the emulator's TSC leapt)
  L1 kernel log:
    [  948.032674] watchdog: BUG: soft lockup - CPU#0 stuck for 137s! [CPU 0/KVM:2141]
  L1: nothing failed that the clock jump does not explain (documented emulator signature)"
leapt="  guestbench: not ok - exited with status 1 (no failing case reported)
  L1: clock jumped: its kernel log reaches 1023 s in a boot of 885 s on the host's clock (the emulator's TSC leapt)
  L1: nothing failed that the clock jump does not explain (documented emulator signature)"
bench_retry "bench: the clock leapt, the plan's guest reported the lockups a leap makes: retried" 0 "$leapt" \
	"# tierk-a: [  245.952071] watchdog: BUG: soft lockup - CPU#1 stuck for 161s! [swapper/1:0]
# tierk-a: L2-KERNEL [  246.1] rcu: INFO: rcu_sched self-detected stall on CPU
not ok 1 tier K: stock against stock, 8 x 2 ABBA groups"
bench_retry "bench: the clock leapt, the plan's guest reported a WARNING: not retried" 1 "$leapt" \
	"# tierk-a: [  245.952071] watchdog: BUG: soft lockup - CPU#1 stuck for 161s! [swapper/1:0]
# tierk-b: L2-KERNEL [  246.1] WARNING: CPU: 1 PID: 7 at kernel/x.c:1 f+0x1/0x2
not ok 1 tier K: stock against stock, 8 x 2 ABBA groups"
bench_retry "bench: L1 stopped and the plan failed: not retried" 1 \
	"  guestbench: not ok 1 tier K: stock against stock
  L1: hang: no L1 console output for 90s"
bench_retry "bench: L1 stopped, the plan reported nothing: retried" 0 \
	"  L1: hang: no L1 console output for 90s
  L1: did not finish its plan (crash, hang or time-out)"
[ "$tap_failed" = 0 ]
