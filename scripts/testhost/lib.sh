#!/bin/bash
# Shared settings of the pvple test host.  Sourced, never run.
#
# Everything downloaded, extracted or built for a kernel version lives in
# $PVPLE_CACHE/<version>/, outside the clone, so that a second run is warm.

PVPLE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PVPLE_CACHE=${PVPLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pvple}
PVPLE_JOBS=${PVPLE_JOBS:-$(nproc)}

log() { printf '[pvple %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "error: $*"; exit 1; }

# The concrete kernel behind Debian's 6.12 meta package, e.g. 6.12.117+deb12-amd64.
# The archive rotates versions, so this is resolved on every run.
pvple_resolve_versions() {
	local dep
	dep=$(dpkg-query -W -f='${Depends}' linux-image-6.12-amd64 2>/dev/null) ||
		die "linux-image-6.12-amd64 is not installed (run scripts/testhost/prepare.sh)"
	KVER=$(sed -n 's/.*linux-image-\(6\.12\.[^ ,]*-amd64\).*/\1/p' <<<"$dep")
	[ -n "$KVER" ] || die "cannot read the kernel version from: $dep"
	KSRC_VER=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	KDIR=/usr/src/linux-headers-$KVER
	KIMAGE=/boot/vmlinuz-$KVER
	KMODS=/lib/modules/$KVER
	WORK=$PVPLE_CACHE/$KVER
	KSRC=$PVPLE_CACHE/src-$KSRC_VER/linux-source-6.12
	# One build directory per source tree: a copy of the tree (selfcheck)
	# must never pick up objects built from another.
	BUILD=$WORK/build/$(printf '%s' "$PVPLE_TOP" | md5sum | cut -c1-8)
	export KVER KSRC_VER KDIR KIMAGE KMODS WORK KSRC BUILD
}

# pvple_l1_stopped VERDICT: true when a nested-guest boot failed because
# L1 stopped (hang or time-out under multi-threaded TCG) and L1 logged no
# kernel failure: an emulator failure, which the callers retry.
pvple_l1_stopped() {
	grep -q 'L1: hang\|L1: time-out\|did not finish' "$1" &&
		! grep -q 'L1 kernel log:' "$1"
}
