#!/bin/bash
# Tests of the test host's reset evidence (pvple_l0_watch and
# pvple_reset_watch, scripts/testhost/lib.sh; reset-watch.py): L0's QEMU,
# run with boot.sh's arguments, boots a 512-byte boot sector that
# triple-faults (an IDT of limit 0, then int3).  The registers at the
# fault must be kept, with the cause, and QEMU must end; a boot whose
# results say it finished must leave no evidence and end too.  TAP output;
# skipped when L0's QEMU is not built yet (make check builds it first).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/testhost/lib.sh"
TAP_PREFIX=reset-watch
. "$top/scripts/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pvple_l0_qemu

# sector FILE DELAY: cli; lidt [idt]; int3 -- after DELAY (CX, units of
# 65.5 ms) in BIOS int 15h/86h, so that the fault comes before or after
# the watcher has connected.
sector() {
	python3 - "$1" "$2" <<'PY'
import sys
delay = int(sys.argv[2])
wait = bytes([0xB4, 0x86, 0xB9, delay & 0xff, delay >> 8,
              0xBA, 0, 0, 0xCD, 0x15]) if delay else b""
idt = 0x7c00 + 0x40
code = wait + bytes([0xFA, 0x0F, 0x01, 0x1E, idt & 0xff, idt >> 8,
                     0xCC, 0xEB, 0xFE])
b = bytearray(512)
b[:len(code)] = code
b[510:] = b"\x55\xaa"
open(sys.argv[1], "wb").write(b)
PY
}

# boot DIR SECTOR RESULTS-TEXT: QEMU as boot.sh starts it; its status.
boot() {
	local dir=$1 qpid
	mkdir -p "$dir"
	printf '%s\n' "$3" >"$dir/results.raw"
	pvple_l0_watch "$dir"
	timeout 60 "$L0_QEMU" -accel tcg -display none -nodefaults \
		"${L0_WATCH[@]}" -drive file="$2",format=raw,if=floppy \
		-boot a &
	qpid=$!
	pvple_reset_watch "$qpid" "$dir" "$dir/results.raw"
	wait "$qpid"
	local rc=$?
	wait $!
	return $rc
}

echo "TAP version 13"
if ! command -v "$L0_QEMU" >/dev/null; then
	echo "1..1"
	echo "ok 1 $TAP_PREFIX: # SKIP no L0 QEMU ($L0_QEMU): make check builds it"
	exit 0
fi
echo "1..3"

sector "$tmp/now.img" 0
boot "$tmp/now" "$tmp/now.img" "PVPLE-BEGIN plan=check"
rc=$?
r=$tmp/now/reset.txt
[ "$rc" = 0 ] && grep -q 'VM status: paused (shutdown)' "$r" &&
	grep -q '^EIP=00007c06 ' "$r" && grep -q '^IDT= *00000000 00000000' "$r" &&
	grep -q 'Triple fault' "$tmp/now/qemu.log"
tap_result $? "a fault before the watcher connects keeps the registers (rc $rc)"

sector "$tmp/late.img" 45
boot "$tmp/late" "$tmp/late.img" "PVPLE-BEGIN plan=check"
rc=$?
r=$tmp/late/reset.txt
[ "$rc" = 0 ] && grep -q 'QMP SHUTDOWN reason guest-reset' "$r" &&
	grep -q '^EIP=00007c10 ' "$r"
tap_result $? "a fault after it keeps them, with QMP's reason (rc $rc)"

boot "$tmp/end" "$tmp/now.img" "PVPLE-END rc=0"
rc=$?
[ "$rc" = 0 ] && [ ! -e "$tmp/end/reset.txt" ]
tap_result $? "a finished plan leaves no evidence and QEMU ends (rc $rc)"
[ "$tap_failed" = 0 ]
