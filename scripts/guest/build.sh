#!/bin/bash
# Builds the pvple guest kernel: a fresh Linux 6.12 tree from Debian's
# linux-source-6.12 with the guest-pvlock series applied, configured from
# tinyconfig plus scripts/guest/guest.config.  Output: $WORK/guest/bzImage
# (and $WORK/guest/bzImage-stock, the same without the series, with
# GUEST_STOCK=1).  Prints the build time.
set -euo pipefail
. "$(dirname "$0")/../testhost/lib.sh"
pvple_resolve_versions

variant=${GUEST_STOCK:+stock}
variant=${variant:-pvple}
dir=$WORK/guest/$variant
src=$dir/src
out=$dir/build
series=$PVPLE_TOP/guest-pvlock

# Rebuild when the config (or, for the patched kernel, the series) changes.
stamp=$(md5sum <"$PVPLE_TOP/scripts/guest/guest.config" | cut -c1-8)
if [ "$variant" = pvple ]; then
	stamp+=-$(while read -r p; do md5sum "$series/$p"; done <"$series/series" |
		  md5sum | cut -c1-8)
fi
if [ -f "$dir/bzImage" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$stamp" ]; then
	log "guest kernel ($variant) is up to date: $dir/bzImage"
	exit 0
fi

t0=$(date +%s)
rm -rf "$dir"
mkdir -p "$src" "$out"
log "unpacking linux-source-6.12 for the $variant guest"
tar -C "$src" --strip-components=1 -xf /usr/src/linux-source-6.12.tar.xz
if [ "$variant" = pvple ]; then
	while read -r p; do
		log "applying $p"
		(cd "$src" && git apply --check "$series/$p" && git apply "$series/$p")
	done <"$series/series"
fi
make -s -C "$src" O="$out" tinyconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
	"$PVPLE_TOP/scripts/guest/guest.config" >/dev/null
make -s -C "$src" O="$out" olddefconfig >/dev/null
if [ "$variant" = pvple ] && ! grep -q '^CONFIG_KVM_PVPLE=y' "$out/.config"; then
	die "CONFIG_KVM_PVPLE did not survive olddefconfig"
fi
log "building the $variant guest kernel (-j$PVPLE_JOBS)"
make -s -C "$src" O="$out" -j"$PVPLE_JOBS" bzImage
cp "$out/arch/x86/boot/bzImage" "$dir/bzImage"
echo "$stamp" >"$dir/stamp"
log "guest kernel ($variant) built in $(($(date +%s) - t0))s: $dir/bzImage"
