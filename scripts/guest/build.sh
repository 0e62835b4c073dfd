#!/bin/bash
# Builds a guest kernel for the nested test host: Linux 6.12 from Debian's
# linux-source-6.12, configured from tinyconfig plus scripts/guest/
# guest.config, with its modules (locktorture) packed as an initramfs
# fragment.  GUEST_VARIANT picks what is applied on top:
#   pvple   the guest-pvlock series (the default)
#   stock   nothing: the unpatched kernel (also GUEST_STOCK=1)
#   gyield  scripts/guest/bench-guest-yield.patch: the benchmark's
#           guest-only directed yield, not part of the product
# Output: $WORK/guest/<variant>/{bzImage,modules.cpio.gz}.  Prints the
# build time.
#
# The stock kernel is built first; a variant is built from a copy of the
# built stock tree with its patches applied, so only what they touch is
# compiled again.  The trees are built in place (no O=): kbuild then
# records relative paths, and a copied tree stays consistent.
set -euo pipefail
. "$(dirname "$0")/../testhost/lib.sh"
pvple_resolve_versions

variant=${GUEST_VARIANT:-${GUEST_STOCK:+stock}}
variant=${variant:-pvple}
case $variant in
pvple) patches=$(sed "s|^|$PVPLE_TOP/guest-pvlock/|" "$PVPLE_TOP/guest-pvlock/series") ;;
stock) patches= ;;
gyield) patches=$PVPLE_TOP/scripts/guest/bench-guest-yield.patch ;;
*) die "unknown guest variant: $variant" ;;
esac
dir=$WORK/guest/$variant

# Rebuild when the config, the patches or this script change.
stamp=$(cat "$PVPLE_TOP/scripts/guest/guest.config" "$0" $patches | md5sum | cut -c1-8)
if [ -f "$dir/bzImage" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$stamp" ]; then
	log "guest kernel ($variant) is up to date: $dir/bzImage"
	exit 0
fi

t0=$(date +%s)
src=$dir/src
rm -rf "$dir"
mkdir -p "$dir"
if [ "$variant" != stock ]; then
	GUEST_VARIANT=stock "$0"
	log "copying the built stock tree for the $variant guest"
	cp -a "$WORK/guest/stock/src" "$src"
	for p in $patches; do
		log "applying $(basename "$p")"
		(cd "$src" && git apply --check "$p" && git apply "$p")
	done
else
	log "unpacking linux-source-6.12 for the $variant guest"
	mkdir -p "$src"
	tar -C "$src" --strip-components=1 -xf /usr/src/linux-source-6.12.tar.xz
	make -s -C "$src" tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$src" "$src/.config" \
		"$PVPLE_TOP/scripts/guest/guest.config" >/dev/null
fi
make -s -C "$src" olddefconfig >/dev/null
if [ "$variant" = pvple ] && ! grep -q '^CONFIG_KVM_PVPLE=y' "$src/.config"; then
	die "CONFIG_KVM_PVPLE did not survive olddefconfig"
fi
grep -q '^CONFIG_LOCK_TORTURE_TEST=m' "$src/.config" ||
	die "locktorture is not a module in the guest config"
log "building the $variant guest kernel (-j$PVPLE_JOBS)"
make -s -C "$src" -j"$PVPLE_JOBS" bzImage modules
cp "$src/arch/x86/boot/bzImage" "$dir/bzImage"
# Its modules, as an initramfs fragment the L1 scripts append to the
# guest's initramfs (the kernel unpacks concatenated archives in turn).
rm -rf "$dir/modroot"
make -s -C "$src" INSTALL_MOD_PATH="$dir/modroot" INSTALL_MOD_STRIP=1 \
	modules_install >/dev/null
(cd "$dir/modroot" && find . | cpio -o -H newc --quiet) | gzip -1 >"$dir/modules.cpio.gz"
echo "$stamp" >"$dir/stamp"
log "guest kernel ($variant) built in $(($(date +%s) - t0))s: $dir/bzImage"
