#!/bin/bash
# stage-l2.sh DIR: lays out what nested guests boot, for the test host's
# initramfs and for "make bench-host": DIR/bzImage-VARIANT and
# DIR/initramfs-VARIANT.cpio.gz (the common guest initramfs with that
# kernel's modules appended) for each guest kernel built.
set -euo pipefail
. "$(dirname "$0")/../testhost/lib.sh"
pvple_resolve_versions
dir=$1
mkdir -p "$dir"
"$PVPLE_TOP/scripts/guest/mkl2initramfs.sh" "$dir/initramfs.cpio.gz"
# l2_cost_module VARIANT: scripts/guest/l2-unlock-cost built against that
# kernel's tree, as an initramfs fragment in $WORK/guest/VARIANT/cost.cpio.gz
# (lib/modules/RELEASE/extra/): the unlock bench's module (l2-init,
# l2.cost=1).  Built apart from the kernel, so that the kernel's stamp and
# build stay the guest-check's.
l2_cost_module() {
	local src=$WORK/guest/$1/src b=$WORK/guest/$1/cost rel
	rm -rf "$b"
	mkdir -p "$b/build"
	cp "$PVPLE_TOP"/scripts/guest/l2-unlock-cost/{Kbuild,*.c} "$b/build/"
	make -s -C "$src" M="$b/build" modules >/dev/null
	rel=$(make -s -C "$src" kernelrelease)
	mkdir -p "$b/root/lib/modules/$rel/extra"
	cp "$b/build/pvple_unlock_cost.ko" "$b/root/lib/modules/$rel/extra/"
	(cd "$b/root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$b.cpio.gz"
}

for v in pvple stock gyield; do
	[ -f "$WORK/guest/$v/bzImage" ] || continue
	cp "$WORK/guest/$v/bzImage" "$dir/bzImage-$v"
	l2_cost_module "$v"
	cat "$dir/initramfs.cpio.gz" "$WORK/guest/$v/modules.cpio.gz" \
		"$WORK/guest/$v/cost.cpio.gz" >"$dir/initramfs-$v.cpio.gz"
done
rm -rf "$dir/initramfs.cpio.gz" "$dir/initramfs-root"
