#!/bin/bash
# Runs checkpatch.pl --strict of the 6.12 source over every C file and header
# in the tree (git-tracked) and over the guest patch series, one TAP line per
# file; then the 6.12 kernel-doc over kvm-pvple/: no warning, and kernel-doc
# on every function another file calls (each one declared in its headers).
set -uo pipefail
. "$(dirname "$0")/testhost/lib.sh"
pvple_resolve_versions
cp=$KSRC/scripts/checkpatch.pl
[ -f "$cp" ] || die "no $cp (run scripts/testhost/prepare.sh)"
cd "$PVPLE_TOP"
mapfile -t files < <(git ls-files '*.c' '*.h')
mapfile -t patches < <(git ls-files 'guest-pvlock/*.patch' | grep -v '/0000-')
echo "TAP version 13"
echo "1..$((${#files[@]} + ${#patches[@]} + 2))"
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

# tap_line OK TEXT DETAIL: one more line, DETAIL as comments if not OK.
tap_line() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		sed 's/^/# /' <<<"$3"
		bad=$((bad + 1))
	fi
}
kd=$(perl "$KSRC/scripts/kernel-doc" -none -Wall kvm-pvple/*.[ch] 2>&1)
tap_line "$([ -z "$kd" ]; echo $?)" "kernel-doc -Wall: kvm-pvple/*.[ch]" "$kd"
# The functions the headers declare: a name followed by "(" on a line that
# is not a comment, a macro or a typedef.
missing=$(sed -n 's/^[a-z][a-z0-9_ *]*[ *]\(pvple_[a-z0-9_]*\)(.*/\1/p' \
	      kvm-pvple/*.h | sort -u | while read -r f; do
		grep -q "^ \* $f() - " kvm-pvple/*.[ch] || echo "$f"
	  done)
tap_line "$([ -z "$missing" ]; echo $?)" \
	"kernel-doc: every function declared in kvm-pvple/*.h" \
	"no kernel-doc for: $(echo $missing)"
[ "$bad" = 0 ]
