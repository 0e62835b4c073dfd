#!/bin/bash
# mkl2initramfs.sh OUT.cpio.gz: busybox and scripts/guest/l2-init.
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
cp "$PVPLE_TOP/scripts/guest/l2-init" "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
