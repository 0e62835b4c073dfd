#!/bin/bash
# Runs checkpatch.pl --strict of the 6.12 source over every C file and header
# in the tree (git-tracked) and over the guest patch series.  TAP output, one
# line per file.
set -uo pipefail
. "$(dirname "$0")/testhost/lib.sh"
pvple_resolve_versions
cp=$KSRC/scripts/checkpatch.pl
[ -f "$cp" ] || die "no $cp (run scripts/testhost/prepare.sh)"
cd "$PVPLE_TOP"
mapfile -t files < <(git ls-files '*.c' '*.h')
mapfile -t patches < <(git ls-files 'guest-pvlock/*.patch' | grep -v '/0000-')
echo "TAP version 13"
echo "1..$((${#files[@]} + ${#patches[@]}))"
n=0 bad=0
check() {
	local what=$1 out
	shift
	n=$((n + 1))
	out=$(perl "$cp" --no-tree --strict --terse --show-types "$@" 2>&1 |
	      grep -E '(ERROR|WARNING|CHECK):')
	if [ -z "$out" ]; then
		echo "ok $n checkpatch: $what"
	else
		echo "not ok $n checkpatch: $what"
		sed 's/^/# /' <<<"$out"
		bad=$((bad + 1))
	fi
}
for f in "${files[@]}"; do check "$f" -f "$f"; done
# Absolute: given a relative path inside a git work tree, checkpatch 6.12
# misreads a patch file as source and flags every blank context line.
for p in "${patches[@]}"; do check "$p" "$PWD/$p"; done
[ "$bad" = 0 ]
