#!/bin/bash
# mkl2initramfs.sh OUT.cpio.gz: busybox, scripts/guest/l2-init, the
# l2-wake load of the L3 measurement and, where installed, the workloads
# of the Linux-guest benchmark (hackbench from rt-tests, dbench) with
# their shared libraries.  A guest kernel's modules are appended to this
# per kernel (scripts/guest/stage-l2.sh).
set -euo pipefail
. "$(dirname "$0")/../testhost/lib.sh"
out=$1
root=${out%.cpio.gz}-root
rm -rf "$root"
mkdir -p "$root"/{bin,proc,sys,dev,tmp}
cp /bin/busybox "$root/bin/busybox"
for app in $(busybox --list); do
	[ "$app" = busybox ] || ln -sf busybox "$root/bin/$app"
done
gcc -static -O2 -Wall -o "$root/bin/l2-wake" "$PVPLE_TOP/scripts/guest/l2-wake.c"
gcc -static -O2 -Wall -o "$root/bin/calib" "$PVPLE_TOP/scripts/guest/calib.c"
cp "$PVPLE_TOP/scripts/guest/l2-init" "$root/init"
cp "$PVPLE_TOP/scripts/guest/l2-bench" "$root/bin/l2-bench"
# The benchmark's workloads, as Debian ships them.
bins=()
for b in /usr/bin/hackbench /usr/bin/dbench; do
	[ -x "$b" ] && bins+=("$b")
done
if [ ${#bins[@]} -gt 0 ]; then
	cp "${bins[@]}" "$root/bin/"
	for lib in $(ldd "${bins[@]}" | grep -o '/[^ ]*\.so[^ ]*' | sort -u); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
fi
if [ -f /usr/share/dbench/client.txt ]; then
	mkdir -p "$root/share"
	cp /usr/share/dbench/client.txt \
	   "$PVPLE_TOP/scripts/guest/dbench-progress.awk" "$root/share/"
fi
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
