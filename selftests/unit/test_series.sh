#!/bin/bash
# Checks of the guest-pvlock series that need no guest build: the series
# file names every patch in order; the ABI header the series adds is, byte
# for byte, include/uapi/linux/kvm_pvple.h; every patch is signed off; and
# the series applies with "git am" to linux-source-6.12 (when installed).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
series=$top/guest-pvlock
TAP_PREFIX=series
. "$top/scripts/tap.sh"
echo "TAP version 13"
echo "1..4"

listed=$(cat "$series/series" | tr '\n' ' ')
found=$(cd "$series" && ls 0[0-9][0-9][1-9]-*.patch | tr '\n' ' ')
[ "$listed" = "$found" ]
tap_result $? "series lists every patch, in order"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
first=$(head -n1 "$series/series")
sed -n '/^+++ b\/include\/uapi\/linux\/kvm_pvple.h/,/^-- $/p' "$series/$first" |
	sed '1,/^@@/d; /^-- $/,$d; /^diff --git/,$d' | sed 's/^+//' >"$tmp/header"
cmp -s "$tmp/header" "$top/include/uapi/linux/kvm_pvple.h"
tap_result $? "the series adds the same kvm_pvple.h as the module uses"

bad=0
while read -r p; do
	grep -q '^Signed-off-by: ' "$series/$p" || bad=1
done <"$series/series"
tap_result $bad "every patch is signed off"

tarball=/usr/src/linux-source-6.12.tar.xz
if [ ! -f "$tarball" ]; then
	tap_n=$((tap_n + 1))
	echo "ok $tap_n series: applies to linux-source-6.12 # SKIP $tarball is not installed"
else
	files=$(cat "$series"/0*.patch | sed -n 's|^--- a/||p' | sort -u)
	mkdir "$tmp/src"
	tar -C "$tmp/src" --strip-components=1 -xf "$tarball" \
		$(printf 'linux-source-6.12/%s ' $files)
	(cd "$tmp/src" && git init -q && git add -A &&
	 git -c user.name=t -c user.email=t@t commit -qm base &&
	 git -c user.name=t -c user.email=t@t am -q $(sed "s|^|$series/|" "$series/series"))
	tap_result $? "applies to linux-source-6.12 with git am"
fi
[ "$tap_failed" = 0 ]
