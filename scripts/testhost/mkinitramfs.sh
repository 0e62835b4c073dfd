#!/bin/bash
# Assembles the L1 initramfs: busybox, the Debian kernel's KVM modules, our
# modules, the selftests with their shared libraries, and the /init script.
# Usage: mkinitramfs.sh OUTPUT.cpio.gz
set -euo pipefail
. "$(dirname "$0")/lib.sh"
pvple_resolve_versions

out=$1
root=${out%.cpio.gz}-root
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,lib64,pvple/bin,pvple/ko,pvple/kmod}

cp /bin/busybox "$root/bin/busybox"
for app in $(busybox --list); do
	[ "$app" = busybox ] || ln -sf busybox "$root/bin/$app"
done

# Shared libraries of every program we ship, plus libgcc_s, which glibc
# loads at run time for pthread_cancel().
bins=("$BUILD"/selftests/pvple/*_test "$BUILD"/selftests/pvple/pvple_demo \
      "$BUILD"/selftests/pvple/pvple_bench "$BUILD"/selftests/pvple/pvple_pause_cycles)
libs=$(ldd "${bins[@]}" 2>/dev/null | grep -o '/[^ ]*\.so[^ ]*' | sort -u)
libgcc=$(gcc -print-file-name=libgcc_s.so.1)
for lib in $libs $(readlink -f "$libgcc"); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
ln -sf "$(readlink -f "$libgcc")" "$root/lib/x86_64-linux-gnu/libgcc_s.so.1" 2>/dev/null || true
cp "${bins[@]}" "$root/pvple/bin/"

# kvm-amd and everything it needs, decompressed, in load order: Debian's,
# or the debug kernel's (PVPLE_L1=debug, lib.sh).
kmod_order=()
add_kmod() {
	local name=$1 dep
	for dep in $(modinfo -b "$KMOD_BASE" -k "$L1_KVER" -F depends "$name" | tr ',' ' '); do
		add_kmod "$dep"
	done
	[[ " ${kmod_order[*]} " == *" $name "* ]] || kmod_order+=("$name")
}
add_kmod kvm-amd
: >"$root/pvple/kmod/order"
for m in "${kmod_order[@]}"; do
	f=$(modinfo -b "$KMOD_BASE" -k "$L1_KVER" -F filename "$m")
	case $f in
	*.xz) xz -dc "$f" ;;
	*.zst) zstd -dqc "$f" ;;
	*) cat "$f" ;;
	esac >"$root/pvple/kmod/$m.ko"
	echo "$m" >>"$root/pvple/kmod/order"
done

cp "$MODDIR/kvm-pvple.ko" "$MODDIR"/selftests/fixture/*.ko \
	"$root/pvple/ko/"
# Mutant modules and their list ("make check-mutants", mutants.sh).
if [ -n "${PVPLE_MUTANTS:-}" ]; then
	cp "$PVPLE_MUTANTS"/mutant-*.ko "$PVPLE_MUTANTS/mutants.list" "$root/pvple/ko/"
fi
# Nested Linux guests (PVPLE_L2=1): QEMU itself, its libraries and
# firmware, the guest kernels and the guest initramfs.
if [ -n "${PVPLE_L2:-}" ]; then
	qemu=$(command -v qemu-system-x86_64)
	mkdir -p "$root/pvple/qemu" "$root/pvple/l2" "$root/usr/bin"
	cp "$qemu" "$root/usr/bin/"
	for lib in $(ldd "$qemu" | grep -o '/[^ ]*\.so[^ ]*' | sort -u); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	cp -L /usr/share/seabios/bios-256k.bin /usr/share/qemu/kvmvapic.bin \
	      /usr/share/qemu/linuxboot_dma.bin /usr/share/qemu/linuxboot.bin \
	      /usr/share/qemu/pvh.bin "$root/pvple/qemu/"
	"$PVPLE_TOP/scripts/guest/stage-l2.sh" "$root/pvple/l2"
	cp "$PVPLE_TOP/scripts/guest/l1-guest-test.sh" "$root/pvple/bin/guest-test.sh"
	cp "$PVPLE_TOP/scripts/guest/l1-l3-bench.sh" "$root/pvple/bin/l3-bench.sh"
	cp "$PVPLE_TOP/scripts/guest/l1-unlock-cost.sh" "$root/pvple/bin/unlock-cost.sh"
	cp "$PVPLE_TOP/scripts/guest/l1-calib.sh" "$root/pvple/bin/calib.sh"
	gcc -static -O2 -Wall -o "$root/pvple/bin/calib" "$PVPLE_TOP/scripts/guest/calib.c"
	cp "$PVPLE_TOP/scripts/guest/l1-guests-bench.sh" "$root/pvple/bin/guests-bench.sh"
	cp "$PVPLE_TOP/scripts/guest/l1-lib.sh" "$root/pvple/bin/"
	cp "$PVPLE_TOP/scripts/guest/slice-trace.awk" "$root/pvple/bin/"
	cp "$PVPLE_TOP/scripts/tap.sh" "$root/pvple/bin/"
fi

# Debian's perf for 6.12 (PVPLE_PERF=1: the Linux-guest benchmark, the
# profile of "make bench").
if [ -n "${PVPLE_PERF:-}" ]; then
	perf --version | grep -q '^perf version 6\.12\.' ||
		die "perf for 6.12 is not installed (linux-perf from bookworm-backports)"
	mkdir -p "$root/usr/bin"
	cp /usr/bin/perf "$root/usr/bin/perf"
	# Only what is not there yet (libgcc_s is, as a link to the host's
	# file: copying over it would copy a file onto itself).
	for lib in $(ldd /usr/bin/perf | grep -o '/[^ ]*\.so[^ ]*' | sort -u); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
fi

cp "$PVPLE_TOP/packaging/pvple-stat" "$root/pvple/bin/"
cp "$PVPLE_TOP/scripts/testhost/init" "$root/init"
cp "$PVPLE_TOP"/scripts/testhost/plan-*.sh "$root/pvple/"
chmod +x "$root/init"

(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
log "initramfs $(du -h "$out" | cut -f1): ${kmod_order[*]}"
