#!/bin/bash
# qemu.sh: builds the QEMU that runs the test host (L0) when PVPLE_L0 is
# "built" (the default), and caches it as
#   $PVPLE_CACHE/qemu-$PVPLE_QEMU_SERIES/bin/qemu-system-x86_64
# Why: QEMU before 10.2 updates cs->interrupt_request with a plain
# read-modify-write on the nested-SVM VMRUN path, so an interrupt another
# thread raises at that moment is lost and an L1 CPU running an L2 guest
# stops for good (Documentation/testhost.rst, "Which QEMU runs the test
# host").  Debian 12 has no QEMU 10.2 binary that installs (sid's needs a
# newer libc), so this takes Debian's own source of it (suite sid, read
# through a private apt list: the machine's apt sources are not touched)
# and builds x86_64-softmmu alone, TCG only, no docs, no display, no
# network backends.  The source is checked for the fix before building.
#
# qemu-10.2.patch makes TCG's SVM honour the VMCB's PAUSE filter count
# and threshold and advertise PauseFilter and PFThreshold (CPUID
# 0x8000000A EDX), so that kvm_amd enables and adapts its PLE window as on
# hardware (Documentation/testhost.rst, "The pause filter").  It also
# stops cpu_clear_ignne() from rewriting the first CPU's hflags2 from
# other vCPU threads on every XRSTOR, the likely cause of the two-CPU
# bench stops (testhost.rst, "Bench boots").  The cached binary is keyed
# on the patch: a changed patch builds again.
#
# PVPLE_QEMU_SERIES=10.0 builds Debian's QEMU 10.0 source (bookworm-
# backports, the version Debian's binary is) with qemu-10.0.patch, our
# two-line fix of that race alone: the experiment that names the cause
# (testhost.rst).  Nothing uses it by default.
#
# Build dependencies come from prepare.sh (meson >= 1.5 and pycotap from
# bookworm-backports).  Measured: 7 min 24 s on two cores, 112 MB cached.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ "${PVPLE_L0:-built}" = built ] && [ -z "${PVPLE_L0_QEMU:-}" ] || exit 0
series=$PVPLE_QEMU_SERIES
dest=$PVPLE_CACHE/qemu-$series
bin=$dest/bin/qemu-system-x86_64
patch=$PVPLE_TOP/scripts/testhost/qemu-$series.patch
want=none
[ ! -f "$patch" ] || want=$(sha256sum <"$patch" | cut -c1-16)
if [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1 &&
   [ "$(cat "$dest/bin/patch-sum" 2>/dev/null)" = "$want" ]; then
	exit 0
fi

t0=$(date +%s)
case $series in
10.0) suite=bookworm-backports ;;
*) suite=sid ;;
esac
apt_dir=$PVPLE_CACHE/apt-$suite
mkdir -p "$apt_dir/lists/partial" "$dest/src"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
     "http://deb.debian.org/debian $suite main" >"$apt_dir/sources.list"
apt_opts=(-q -o Dir::Etc::SourceList="$apt_dir/sources.list"
	  -o Dir::Etc::SourceParts=/nonexistent
	  -o Dir::State::Lists="$apt_dir/lists" -o APT::Sandbox::User=root)

# The newest Debian source of the series (sid carries several QEMUs at
# times; the archive rotates them, so this is resolved, not pinned).
cd "$dest/src"
if ! ls qemu_"$series".*+ds.orig.tar.xz >/dev/null 2>&1; then
	log "reading Debian's source index ($suite) for QEMU $series"
	apt-get "${apt_opts[@]}" update >/dev/null
	ver=$(apt-cache "${apt_opts[@]}" showsrc qemu |
	      sed -n "s/^Version: \(1:$series\.[0-9]*+ds-[^ ]*\)$/\1/p" |
	      sort -V | tail -n1)
	[ -n "$ver" ] || die "no QEMU $series source in Debian's archive ($suite)"
	log "fetching the source of qemu $ver"
	# The orig tarball is all that is used: upstream's source.
	apt-get "${apt_opts[@]}" source --download-only "qemu=$ver" >/dev/null 2>&1 ||
		ls qemu_"$series".*+ds.orig.tar.xz >/dev/null 2>&1 ||
		die "apt-get source qemu=$ver failed"
fi
tarball=$(ls qemu_"$series".*+ds.orig.tar.xz | sort -V | tail -n1)
rm -rf tree
mkdir tree
tar -C tree --strip-components=1 -xf "$tarball"
cd tree
if [ -f "$patch" ]; then
	log "applying $(basename "$patch")"
	patch -s -p1 <"$patch"
fi
# The fix this build exists for: interrupt_request updated atomically,
# bits cleared with cpu_reset_interrupt() on the SVM paths.
grep -q 'cpu_reset_interrupt(cs, CPU_INTERRUPT_VIRQ)' \
	target/i386/tcg/system/svm_helper.c ||
	die "$tarball lacks the atomic interrupt_request accesses"
# Debian's +ds tarball drops the prebuilt firmware and device trees; the
# build would still list them.  Firmware comes from Debian's packages at
# run time (--firmwarepath).
sed -i 's/^if unpack_edk2_blobs$/if false/' pc-bios/meson.build
[ ! -f pc-bios/dtb/meson.build ] ||
	sed -i "s|^    install_data(dtbs, install_dir: qemu_datadir / 'dtb')$|    dtbs = []|" \
		pc-bios/dtb/meson.build

log "configuring QEMU ${tarball#qemu_} (x86_64-softmmu, TCG only)"
mkdir build
cd build
off=(docs user rust werror gtk sdl vnc opengl spice curl libusb usb-redir
     xen tools guest-agent capstone slirp kvm fdt linux-io-uring libssh
     curses pa alsa oss jack pipewire sndio gnutls nettle gcrypt
     vhost-user-blk-server libvduse vduse-blk-export install-blobs)
../configure --target-list=x86_64-softmmu --prefix="$dest" \
	--firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu \
	--python=/usr/bin/python3 --enable-tcg "${off[@]/#/--disable-}" \
	>"$dest/configure.log" 2>&1 || die "configure failed: $dest/configure.log"
log "building qemu-system-x86_64 (-j$PVPLE_JOBS)"
ninja -j"$PVPLE_JOBS" qemu-system-x86_64 >"$dest/build.log" 2>&1 ||
	die "build failed: $dest/build.log"
mkdir -p "$dest/bin"
cp qemu-system-x86_64 "$bin.new"
mv "$bin.new" "$bin"
echo "$want" >"$dest/bin/patch-sum"
cd "$dest/src"
rm -rf tree
log "$("$bin" --version | head -n1) built in $(($(date +%s) - t0))s: $bin"
