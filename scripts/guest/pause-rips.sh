#!/bin/bash
# Names the guest RIPs of PAUSE exits that "L2_PAUSE_RIPS=1 make
# guest-check" counted ("# CASE pause-rip: COUNT rip 0xADDR" lines of
# RESULTS), from the guest kernel's System.map (the guest config has no
# KASLR), and sums them by function.  Usage: pause-rips.sh RESULTS MAP
set -euo pipefail
results=$1 map=$2
[ -f "$map" ] || { echo "no $map"; exit 0; }
grep -E '^# [^ ]+ pause-rip: ' "$results" |
	awk '{ print $1 " " $2 " " $4 " " $6 }' | sed 's/^# //' |
	awk -v map="$map" '
	BEGIN {
		while ((getline line < map) > 0) {
			split(line, f, " ")
			if (f[2] !~ /^[tTwW]$/) continue
			n++; addr[n] = f[1]; name[n] = f[3]
		}
	}
	# Text symbols in System.map are sorted; a binary search per RIP.
	function sym(hex,    lo, hi, mid) {
		hex = sprintf("%016s", hex); gsub(/ /, "0", hex)
		lo = 1; hi = n
		if (hex < addr[1]) return "?"
		while (lo < hi) {
			mid = int((lo + hi + 1) / 2)
			if (addr[mid] <= hex) lo = mid; else hi = mid - 1
		}
		return name[lo]
	}
	{
		c = $1
		rip = $3; sub(/^0x/, "", rip)
		total[c] += $2; by[c, sym(rip)] += $2
	}
	END {
		for (k in by) {
			split(k, p, SUBSEP)
			printf "%s pause exits in %-36s %7d  %5.1f%%\n", p[1], p[2],
			       by[k], 100 * by[k] / total[p[1]]
		}
	}' | sort -k5,5nr
