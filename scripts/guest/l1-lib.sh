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
