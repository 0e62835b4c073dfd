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
for v in pvple stock gyield; do
	[ -f "$WORK/guest/$v/bzImage" ] || continue
	cp "$WORK/guest/$v/bzImage" "$dir/bzImage-$v"
	cat "$dir/initramfs.cpio.gz" "$WORK/guest/$v/modules.cpio.gz" \
		>"$dir/initramfs-$v.cpio.gz"
done
rm -rf "$dir/initramfs.cpio.gz" "$dir/initramfs-root"
