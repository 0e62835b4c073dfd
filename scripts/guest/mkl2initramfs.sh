#!/bin/bash
# mkl2initramfs.sh OUT.cpio.gz: busybox, scripts/guest/l2-init and the
# l2-wake load of the L3 measurement.
set -euo pipefail
. "$(dirname "$0")/../testhost/lib.sh"
out=$1
root=${out%.cpio.gz}-root
rm -rf "$root"
mkdir -p "$root"/{bin,proc,sys,dev}
cp /bin/busybox "$root/bin/busybox"
for app in $(busybox --list); do
	[ "$app" = busybox ] || ln -sf busybox "$root/bin/$app"
done
gcc -static -O2 -Wall -o "$root/bin/l2-wake" "$PVPLE_TOP/scripts/guest/l2-wake.c"
cp "$PVPLE_TOP/scripts/guest/l2-init" "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
