#!/bin/bash
# Every table kept under Documentation/results/data/ is what its raw data
# gives: NAME.txt names, in a "# regenerate: CMD" line, the command
# (run from the top of the tree, the raw data on its standard input)
# that makes NAME.table; results.rst quotes the table.  TAP output.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
TAP_PREFIX=results-data
. "$top/scripts/tap.sh"
cd "$top" || exit 1
mapfile -t raws < <(ls Documentation/results/data/*.txt 2>/dev/null)
echo "TAP version 13"
echo "1..$((${#raws[@]} + 1))"
for raw in "${raws[@]}"; do
	table=${raw%.txt}.table
	cmd=$(sed -n 's/^# regenerate: //p' "$raw" | head -n 1)
	if [ -z "$cmd" ] || [ ! -f "$table" ]; then
		tap_result 1 "$raw: no regenerate line or no $table"
		continue
	fi
	diff -u "$table" <(bash -c "$cmd" <"$raw") | sed 's/^/# /'
	tap_result "${PIPESTATUS[0]}" "$table is what $raw gives"
done
# Every table is quoted where the results are told.
bad=0
for raw in "${raws[@]}"; do
	grep -q "$(basename "${raw%.txt}")" Documentation/results.rst ||
		{ echo "# $raw: not named in results.rst"; bad=1; }
done
tap_result "$bad" "results.rst names every data file"
[ "$tap_failed" = 0 ]
