#!/bin/bash
# "make deb": the Debian source and binary packages, kvm-pvple-dkms_<VERSION>_all.deb,
# built with dh-dkms from a copy of the git-tracked tree (so that a build
# never packages object files), then checked with lintian.  Prints the
# path of the .deb last.  OUT (default build/deb) receives the results.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$top/build/deb}
ver=$(cat "$top/VERSION")
for t in dpkg-buildpackage dh_dkms lintian fakeroot; do
	command -v "$t" >/dev/null || {
		echo "deb: $t missing: apt-get install -y dpkg-dev debhelper dh-dkms lintian fakeroot" >&2
		exit 1
	}
done
cl=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
[ "$cl" = "$ver" ] || { echo "deb: debian/changelog says $cl, VERSION says $ver" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out/kvm-pvple-$ver"
(cd "$top" && git ls-files -z | xargs -0 cp --parents -t "$out/kvm-pvple-$ver")
(cd "$out/kvm-pvple-$ver" && dpkg-buildpackage -us -uc >"$out/build.log" 2>&1) || {
	tail -n 30 "$out/build.log" >&2
	exit 1
}
deb=$out/kvm-pvple-dkms_${ver}_all.deb
[ -f "$deb" ] || { echo "deb: no $deb" >&2; exit 1; }
lintian --info "$out"/kvm-pvple_"${ver}"_*.changes >"$out/lintian.txt" 2>&1 || true
grep -E '^[EW]: ' "$out/lintian.txt" | sed 's/^/lintian: /' || true
echo "$deb"
