#!/bin/bash
# boot.sh PLAN OUTDIR [KERNEL-ARGS...]
#
# Boots the test host once: Debian's 6.12 kernel under QEMU TCG with the
# initramfs, running /pvple/plan-PLAN.sh.  Leaves OUTDIR/console.log (L1
# kernel log) and OUTDIR/results.tap (test output only), then judges them
# with classify.sh and exits with its status (0 clean, 1 failed, 2 known
# emulator signature).
#
# Environment: PVPLE_TIME_LIMIT (s, whole boot), PVPLE_STALL_LIMIT (s with
# no console output), PVPLE_TCG_THREAD (single|multi), PVPLE_L1_SMP,
# PVPLE_L0 / PVPLE_L0_QEMU (which QEMU, lib.sh), PVPLE_PAUSE (filter|every,
# below), PVPLE_L1_ARGS (more L1 kernel arguments, e.g. no5lvl),
# PVPLE_CPU_FLAGS (more -cpu flags for L1, e.g. -vgif).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
pvple_resolve_versions

plan=$1 out=$2
shift 2
limit=${PVPLE_TIME_LIMIT:-1800}
stall=${PVPLE_STALL_LIMIT:-180}
# Single-threaded TCG: multi-threaded TCG leaves stale int3s after kernel
# text patching, and this module patches text (ftrace) by design.
thread=${PVPLE_TCG_THREAD:-single}
smp=${PVPLE_L1_SMP:-2}
# The pause mode (Documentation/testhost.rst, "The pause filter"):
#   filter  (default) the L0 QEMU's pause filter counts as AMD's does, and
#           kvm_amd runs its adaptive PLE window with a threshold scaled to
#           the emulator (pvple.ple_thresh=auto, measured by L1's /init)
#   every   the filter is hidden from L1 and the test fixture makes kvm_amd
#           intercept PAUSE anyway: every PAUSE exits, so counts are exact
pause=${PVPLE_PAUSE:-filter}
case $pause in
filter) cpu=max pause_args="pvple.fixture=0 pvple.ple_thresh=${PVPLE_PLE_THRESH:-auto}" ;;
every) cpu=max,-pause-filter,-pfthreshold pause_args=pvple.fixture=1 ;;
*) die "PVPLE_PAUSE=$pause: filter or every" ;;
esac

mkdir -p "$out"
rm -f "$out"/console.* "$out"/results.*
initrd=$out/initramfs.cpio.gz
"$PVPLE_TOP/scripts/testhost/mkinitramfs.sh" "$initrd"

args="console=ttyS0 panic=-1 rdinit=/init mitigations=off"
args+=" sysctl.kernel.hung_task_timeout_secs=60 ${L1_ARGS:-} $pause_args"
args+=" ${PVPLE_L1_ARGS:-} pvple.plan=$plan $*"
log "booting L1 ($L1_KVER, tcg thread=$thread, smp=$smp, pause=$pause," \
    "$("$L0_QEMU" --version | sed -n '1s/.*version \([^ ]*\).*/QEMU \1/p')): $plan"
start=$(date +%s)
rm -f "$out/monitor.sock" "$out/stall.txt"
pvple_l0_watch "$out"
"$L0_QEMU" -accel tcg,thread="$thread" -cpu "$cpu${PVPLE_CPU_FLAGS:+,$PVPLE_CPU_FLAGS}" -smp "$smp" -m 2G \
	-display none -nodefaults "${L0_WATCH[@]}" \
	-monitor unix:"$out/monitor.sock",server=on,wait=off \
	-serial file:"$out/console.raw" -serial file:"$out/results.raw" \
	-kernel "$KIMAGE" -initrd "$initrd" -append "$args" &
qpid=$!
pvple_reset_watch "$qpid" "$out" "$out/results.raw"
wpid=$!

# An L1 CPU that stopped while the other goes on: the other keeps the
# console alive (RCU stall reports every 63 s), so silence never comes.
# The emulator's signature (Documentation/testhost.rst): the stalled CPU
# answers no NMI, so no "NMI backtrace" follows; a kernel bug's stall
# would print one, and is left to the time limit and classify.sh.
l1_cpu_stuck() {
	[ "$(grep -ac 'rcu_preempt detected stalls' "$1")" -ge 3 ] &&
		! grep -aq 'NMI backtrace for cpu' "$1"
}

verdict=""
last_size=0 last_change=$start
while kill -0 "$qpid" 2>/dev/null; do
	sleep 2
	now=$(date +%s)
	size=$(stat -c %s "$out/console.raw" 2>/dev/null || echo 0)
	if [ "$size" != "$last_size" ]; then
		last_size=$size last_change=$now
	fi
	if [ $((now - start)) -ge "$limit" ]; then
		verdict="time-out: L1 ran longer than ${limit}s"
	elif [ $((now - last_change)) -ge "$stall" ]; then
		verdict="hang: no L1 console output for ${stall}s"
	elif l1_cpu_stuck "$out/console.raw"; then
		verdict="hang: an L1 CPU stopped (RCU stall reported 3 times, its NMI never answered)"
	fi
	if [ -n "$verdict" ]; then
		# Evidence first: what the emulator was doing when L1 stopped.
		"$PVPLE_TOP/scripts/testhost/stall-dump.sh" "$qpid" \
			"$out/monitor.sock" "$out/stall.txt"
		kill -KILL "$qpid" 2>/dev/null || true
		break
	fi
done
wait "$qpid" 2>/dev/null || true
wait "$wpid" 2>/dev/null || true
tr -d '\r' <"$out/console.raw" >"$out/console.log"
tr -d '\r' <"$out/results.raw" >"$out/results.tap"
log "L1 finished in $(($(date +%s) - start))s${verdict:+ ($verdict)}"
[ -z "$verdict" ] || echo "  L1: $verdict (QEMU's state: $out/stall.txt)"
if [ -s "$out/reset.txt" ]; then
	echo "  L1: reset before the end of its plan$(grep -q 'Triple fault' \
		"$out/qemu.log" 2>/dev/null && echo ', a triple fault')" \
		"(QEMU's state: $out/reset.txt)"
fi

set +e
"$PVPLE_TOP/scripts/testhost/classify.sh" "$out/console.log" "$out/results.tap" \
	"$(($(date +%s) - start))"
