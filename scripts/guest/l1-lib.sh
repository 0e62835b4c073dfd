# Sourced by the scripts that run nested guests inside the test host (L1),
# or on a real KVM host (make bench-host): TAP results, the paused VM that
# keeps KVM's static keys steady, and how a guest is started.
#   PVPLE_QEMU    the VMM (default: the test host's copy and firmware)
#   PVPLE_L2_DIR  bzImage-VARIANT and initramfs-VARIANT.cpio.gz, as
#                 scripts/guest/stage-l2.sh lays them out
QEMU=${PVPLE_QEMU:-qemu-system-x86_64 -L /pvple/qemu}
L2_DIR=${PVPLE_L2_DIR:-/pvple/l2}
# TAP lines (tap_result, tap_skip): scripts/tap.sh, staged beside this
# file in the test host, one directory up in the source tree.
tap_lib=$(dirname "$0")/tap.sh
[ -f "$tap_lib" ] || tap_lib=$(dirname "$0")/../tap.sh
. "$tap_lib"

# Multi-threaded TCG leaves stale int3s when KVM's static keys flip as the
# VM count goes 0 <-> 1; a paused VM kept alive keeps them steady.
keeper_start() {
	$QEMU -accel kvm -cpu host -smp 1 -m 16M -display none -nodefaults \
		-S -monitor none -serial none 2>/dev/null &
	keeper=$!
}

keeper_stop() {
	kill "$keeper"
	wait "$keeper" 2>/dev/null
}

# l2_start LOG KERNEL CPU APPEND [QEMU-ARGS...]: a nested guest in the
# background, its console in LOG, its pid in $qpid.  KERNEL is
# bzImage-VARIANT; the initramfs is that variant's (its modules).  L2_MEM
# is its memory (256M).  With L2_DRY set, prints the command instead.
l2_start() {
	log=$1 kernel=$2 cpu=$3 append=$4
	shift 4
	set -- -accel kvm -cpu "$cpu" "$@" -m "${L2_MEM:-256M}" -display none \
		-nodefaults -no-reboot -serial file:"$log" \
		-kernel "$L2_DIR/$kernel" \
		-initrd "$L2_DIR/initramfs-${kernel#bzImage-}.cpio.gz" \
		-append "console=ttyS0 panic=-1 $append"
	if [ -n "${L2_DRY:-}" ]; then
		echo "# would run: $QEMU $*"
		qpid=
		return
	fi
	: >"$log"
	$QEMU "$@" &
	qpid=$!
}

# l2_wait LOG SECS: waits until the guest l2_start started prints L2-END
# in LOG (then ends it from here) or SECS seconds pass, and reaps it; the
# seconds waited in $t.
l2_wait() {
	t=0
	while kill -0 "$qpid" 2>/dev/null && [ "$t" -lt "$2" ]; do
		sleep 1
		t=$((t + 1))
		grep -q '^L2-END' "$1" && kill "$qpid"
	done
	kill -9 "$qpid" 2>/dev/null
	wait "$qpid" 2>/dev/null
}
