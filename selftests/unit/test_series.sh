#!/bin/bash
# Checks of the guest-pvlock series that need no guest build: the series
# file names every patch in order; the ABI header the series adds is, byte
# for byte, include/uapi/linux/kvm_pvple.h; every patch is signed off; and
# the series applies with "git am" to linux-source-6.12 (when installed).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
series=$top/guest-pvlock
n=0 failed=0
check() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n series: $2"
	else
		echo "not ok $n series: $2"
		failed=$((failed + 1))
	fi
}
echo "TAP version 13"
echo "1..4"

listed=$(cat "$series/series" | tr '\n' ' ')
found=$(cd "$series" && ls 0[0-9][0-9][1-9]-*.patch | tr '\n' ' ')
[ "$listed" = "$found" ]
check $? "series lists every patch, in order"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
first=$(head -n1 "$series/series")
sed -n '/^+++ b\/include\/uapi\/linux\/kvm_pvple.h/,/^-- $/p' "$series/$first" |
	sed '1,/^@@/d; /^-- $/,$d; /^diff --git/,$d' | sed 's/^+//' >"$tmp/header"
cmp -s "$tmp/header" "$top/include/uapi/linux/kvm_pvple.h"
check $? "the series adds the same kvm_pvple.h as the module uses"

bad=0
while read -r p; do
	grep -q '^Signed-off-by: ' "$series/$p" || bad=1
done <"$series/series"
check $bad "every patch is signed off"

tarball=/usr/src/linux-source-6.12.tar.xz
if [ ! -f "$tarball" ]; then
	n=$((n + 1))
	echo "ok $n series: applies to linux-source-6.12 # SKIP $tarball is not installed"
else
	files=$(cat "$series"/0*.patch | sed -n 's|^--- a/||p' | sort -u)
	mkdir "$tmp/src"
	tar -C "$tmp/src" --strip-components=1 -xf "$tarball" \
		$(printf 'linux-source-6.12/%s ' $files)
	(cd "$tmp/src" && git init -q && git add -A &&
	 git -c user.name=t -c user.email=t@t commit -qm base &&
	 git -c user.name=t -c user.email=t@t am -q $(sed "s|^|$series/|" "$series/series"))
	check $? "applies to linux-source-6.12 with git am"
fi
[ "$failed" = 0 ]
