#!/bin/bash
# prepare.sh [PACKAGE[:MIN-VERSION]]...
# Installs what the pvple test host needs on Debian 12 and unpacks the 6.12
# source.  Idempotent: a machine that has everything does no network I/O.
# Extra packages (the benchmarks' workloads) may be named; one with a
# minimum version comes from bookworm-backports when bookworm's is older.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=(busybox-static cpio kmod xz-utils make gcc libc6-dev
      linux-image-6.12-amd64 linux-headers-6.12-amd64 linux-source-6.12
      flex bison libelf-dev bc gdb
      dpkg-dev debhelper dh-dkms dkms lintian fakeroot)
BACKPORTS_SRC=/etc/apt/sources.list.d/pvple-bookworm-backports.sources
QEMU_MIN=10.0
BPO=(qemu-system-x86:$QEMU_MIN)
# What qemu.sh needs to build the L0 QEMU (PVPLE_L0=built, the default).
# Debian's qemu-system-x86 stays: its firmware, and L1's own VMM.
if [ "${PVPLE_L0:-built}" = built ] && [ -z "${PVPLE_L0_QEMU:-}" ]; then
	PKGS+=(ninja-build pkg-config python3-venv libglib2.0-dev
	       libpixman-1-dev zlib1g-dev)
	BPO+=(meson:1.5 python3-pycotap:1.1)
fi
for p in "$@"; do
	case $p in
	*:*) BPO+=("$p") ;;
	*) PKGS+=("$p") ;;
	esac
done

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
# Packages that need a version newer than bookworm's: from backports.
bpo=()
for p in "${BPO[@]}"; do
	ver=$(dpkg-query -W -f='${Version}' "${p%%:*}" 2>/dev/null || true)
	ver=${ver#*:}
	if [ -z "$ver" ] || ! dpkg --compare-versions "$ver" ge "${p#*:}"; then
		bpo+=("${p%%:*}")
	fi
done

if [ ${#missing[@]} -gt 0 ] || [ ${#bpo[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]} ${bpo[*]}"
	# QEMU 10 from bookworm-backports: its TCG runs nested KVM far more
	# reliably than bookworm's 7.2 (see Documentation/testhost.rst).
	# Debian's perf for 6.12 is there too.
	if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		log "adding bookworm-backports to apt sources"
		cat >"$BACKPORTS_SRC" <<-SRC
		Types: deb
		URIs: http://deb.debian.org/debian
		Suites: bookworm-backports
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
		SRC
	fi
	log "installing: ${missing[*]} ${bpo[*]/%/ (backports)}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	[ ${#missing[@]} -eq 0 ] ||
		apt-get install -y -q --no-install-recommends "${missing[@]}"
	[ ${#bpo[@]} -eq 0 ] || apt-get install -y -q --no-install-recommends \
		-t bookworm-backports "${bpo[@]}"
fi

pvple_resolve_versions
[ -f "/boot/vmlinuz-$KVER" ] || die "missing /boot/vmlinuz-$KVER"
[ -d "$KDIR" ] || die "missing $KDIR (headers do not match the image)"
"$PVPLE_TOP/scripts/testhost/qemu.sh" || die "could not build the L0 QEMU"
log "kernel $KVER, source $KSRC_VER, L0: $("$L0_QEMU" --version | head -n1)"

if [ ! -f "$KSRC/.pvple-headers-done" ]; then
	log "unpacking linux-source-6.12 into $(dirname "$KSRC")"
	rm -rf "$(dirname "$KSRC")"
	mkdir -p "$(dirname "$KSRC")"
	tar -C "$(dirname "$KSRC")" -xf /usr/src/linux-source-6.12.tar.xz
	make -s -C "$KSRC" headers >/dev/null
	touch "$KSRC/.pvple-headers-done"
fi
