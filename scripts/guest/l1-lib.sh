# Sourced by the scripts that run nested guests inside the test host (L1):
# TAP results, and the paused VM that keeps KVM's static keys steady.
QEMU="qemu-system-x86_64 -L /pvple/qemu"
n=0
failed=0

# result RC DESCRIPTION: one TAP line.
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failed=$((failed + 1))
	fi
}

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
# background, its console in LOG, its pid in $qpid.
l2_start() {
	log=$1 kernel=$2 cpu=$3 append=$4
	shift 4
	: >"$log"
	$QEMU -accel kvm -cpu "$cpu" "$@" -m 256M -display none \
		-nodefaults -no-reboot -serial file:"$log" \
		-kernel /pvple/l2/"$kernel" -initrd /pvple/l2/initramfs.cpio.gz \
		-append "console=ttyS0 panic=-1 $append" &
	qpid=$!
}
