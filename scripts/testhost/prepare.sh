#!/bin/bash
# Installs what the pvple test host needs on Debian 12 and unpacks the 6.12
# source.  Idempotent: a machine that has everything does no network I/O.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=(busybox-static cpio kmod xz-utils make gcc libc6-dev
      linux-image-6.12-amd64 linux-headers-6.12-amd64 linux-source-6.12
      flex bison libelf-dev bc)
BACKPORTS_SRC=/etc/apt/sources.list.d/pvple-bookworm-backports.sources
QEMU_MIN=10.0

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
qemu_ver=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null || true)
qemu_ok=false
if [ -n "$qemu_ver" ] &&
   dpkg --compare-versions "${qemu_ver#1:}" ge "$QEMU_MIN"; then
	qemu_ok=true
fi

if [ ${#missing[@]} -gt 0 ] || ! $qemu_ok; then
	[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]} qemu-system-x86>=$QEMU_MIN"
	# QEMU 10 from bookworm-backports: its TCG runs nested KVM far more
	# reliably than bookworm's 7.2 (see Documentation/testhost.rst).
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
	log "installing: ${missing[*]} qemu-system-x86 (backports)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	[ ${#missing[@]} -eq 0 ] ||
		apt-get install -y -q --no-install-recommends "${missing[@]}"
	$qemu_ok || apt-get install -y -q --no-install-recommends \
		-t bookworm-backports qemu-system-x86
fi

pvple_resolve_versions
[ -f "$KIMAGE" ] || die "missing $KIMAGE"
[ -d "$KDIR" ] || die "missing $KDIR (headers do not match the image)"
log "kernel $KVER, source $KSRC_VER, $(qemu-system-x86_64 --version | head -n1)"

if [ ! -f "$KSRC/.pvple-headers-done" ]; then
	log "unpacking linux-source-6.12 into $(dirname "$KSRC")"
	rm -rf "$(dirname "$KSRC")"
	mkdir -p "$(dirname "$KSRC")"
	tar -C "$(dirname "$KSRC")" -xf /usr/src/linux-source-6.12.tar.xz
	make -s -C "$KSRC" headers >/dev/null
	touch "$KSRC/.pvple-headers-done"
fi
