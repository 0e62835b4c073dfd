#!/bin/bash
# guests-table.sh RESULTS [PLOTDIR]: the Linux-guest benchmark's table from
# the "# cfg=C round=R wl=W value=V k=v ..." lines of
# scripts/guest/l1-guests-bench.sh (any other line is ignored).  With
# PLOTDIR, also writes PLOTDIR/*.dat and, where gnuplot is installed,
# PLOTDIR/guests-time.png (median with min-max per configuration and
# workload) and PLOTDIR/guests-acted.png (what became of the PLE exits).
#
# Speed ratios "A/B" are A's speed over B's: time(B)/time(A) for hackbench,
# value(A)/value(B) for the throughputs; above 1 means A is faster.  They
# are ratios of medians.  Reading is in Documentation/results.rst.
set -euo pipefail
in=$1 plots=${2:-}

awk -v plots="$plots" '
function med(arr, n,    i, j, t, a) {
	for (i = 1; i <= n; i++) a[i] = arr[i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# speed of configuration a relative to b for workload w (ratio of medians)
function speed(w, a, b) {
	if (!((w, a) in m) || !((w, b) in m) || m[w, a] == 0 || m[w, b] == 0)
		return "-"
	return sprintf("%.2f", lower[w] ? m[w, b] / m[w, a] : m[w, a] / m[w, b])
}
# one goal line: at least (atleast=1) or at most the bound
function goal(text, g, bound, atleast,    verdict) {
	verdict = "-"
	if (g != "-")
		verdict = (atleast ? (g + 0 >= bound) : (g + 0 <= bound)) ? "met" : "NOT met"
	printf "  %s %5s  %s\n", text, g, verdict
}
$1 == "#" && $2 ~ /^cfg=/ && $3 ~ /^round=/ {
	delete kv
	for (i = 2; i <= NF; i++) {
		p = index($i, "="); kv[substr($i, 1, p - 1)] = substr($i, p + 1)
	}
	c = kv["cfg"]; w = kv["wl"]
	if (kv["value"] !~ /^[0-9.]+$/)
		next
	k = ++n[w, c]
	v[w, c, k] = kv["value"] + 0
	rnd[w, c, k] = kv["round"] + 0
	if (kv["round"] + 0 > rounds) rounds = kv["round"] + 0
	for (f in kv) if (kv[f] ~ /^[0-9]+$/) tot[w, c, f] += kv[f]
	if (kv["ple"] ~ /^[0-9]+$/) hasple[w, c] = 1
	if (!(w in wseen)) { wseen[w] = 1; wl[++nw] = w }
}
END {
	split("under ple anchor gyield pvple series", order, " ")
	label["under"] = "undercommitted reference"
	label["ple"] = "unpatched, nopvspin (PLE alone)"
	label["anchor"] = "unpatched, pvqspinlock (anchor)"
	label["gyield"] = "unpatched + guest-only yield"
	label["pvple"] = "guest-pvlock + kvm-pvple"
	label["series"] = "guest-pvlock, no module"
	unit["hackbench"] = "s"; lower["hackbench"] = 1
	unit["dbench"] = "MB/s"; unit["locktorture"] = "writes/s"
	for (j = 1; j <= nw; j++) {
		w = wl[j]
		for (o = 1; o <= 6; o++) {
			c = order[o]
			if (!n[w, c]) continue
			delete a
			lo = hi = v[w, c, 1]
			for (k = 1; k <= n[w, c]; k++) {
				a[k] = v[w, c, k]
				if (a[k] < lo) lo = a[k]
				if (a[k] > hi) hi = a[k]
			}
			m[w, c] = med(a, n[w, c]); mn[w, c] = lo; mx[w, c] = hi
		}
	}
	printf "%-21s %-39s %3s %10s %21s %9s\n", "workload", "configuration", "n",
	       "median", "min-max", "x under"
	for (j = 1; j <= nw; j++) {
		w = wl[j]
		for (o = 1; o <= 6; o++) {
			c = order[o]
			if (!n[w, c]) continue
			xu = "-"
			if (((w, "under") in m) && m[w, "under"] > 0 && m[w, c] > 0)
				xu = sprintf("%.2f", lower[w] ? m[w, c] / m[w, "under"] : m[w, "under"] / m[w, c])
			printf "%-21s %-39s %3d %10.2f %10.2f-%-10.2f %9s\n",
			       w " " unit[w], c ": " label[c], n[w, c], m[w, c],
			       mn[w, c], mx[w, c], xu
		}
	}
	print ""
	print "speed ratios (ratio of medians; above 1: the first is faster)"
	printf "%-16s", "ratio"
	for (j = 1; j <= nw; j++) printf " %12s", wl[j]
	print ""
	split("pvple/anchor pvple/gyield pvple/ple pvple/under series/anchor gyield/anchor anchor/ple", rows, " ")
	for (r = 1; r <= 7; r++) {
		split(rows[r], ab, "/")
		printf "%-16s", rows[r]
		for (j = 1; j <= nw; j++) printf " %12s", speed(wl[j], ab[1], ab[2])
		print ""
	}
	# The anchor against itself: medians of the first and second half of
	# the rounds, the noise floor of the speed ratios above.
	printf "%-16s", "anchor 1st/2nd"
	for (j = 1; j <= nw; j++) {
		w = wl[j]; delete h1; delete h2; n1 = n2 = 0
		for (k = 1; k <= n[w, "anchor"]; k++)
			if (rnd[w, "anchor", k] <= rounds / 2) h1[++n1] = v[w, "anchor", k]
			else h2[++n2] = v[w, "anchor", k]
		if (!n1 || !n2) { printf " %12s", "-"; continue }
		a1 = med(h1, n1); a2 = med(h2, n2)
		printf " %12.2f", lower[w] ? a2 / a1 : a1 / a2
	}
	print ""
	print ""
	print "per run, over the workload only: PLE exits and park hypercalls, and"
	print "what kvm-pvple did with them (acted: yields tried and parks)"
	print "(non-stock: acted or spin; to-holder: successful yields to the holder;"
	print " no-holder: stock because no record named the holder)"
	printf "%-12s %-7s %8s %7s %7s %8s %8s %8s %8s %8s %9s %8s %9s %9s %9s\n", "workload", "config",
	       "PLE/run", "hc/run", "acted", "yields", "parks", "spin", "stock", "idle-rec",
	       "PVyield-ok", "halts", "non-stock", "to-holder", "no-holder"
	for (j = 1; j <= nw; j++) {
		w = wl[j]
		for (o = 1; o <= 6; o++) {
			c = order[o]
			if (!n[w, c]) continue
			k = n[w, c]
			ple = hasple[w, c] ? sprintf("%.0f", tot[w, c, "ple"] / k) : "-"
			hc = hasple[w, c] ? sprintf("%.0f", tot[w, c, "hcpark"] / k) : "-"
			ev = tot[w, c, "ple"] + tot[w, c, "hcpark"]
			acted = nonstock = "-"
			if (hasple[w, c] && ev) {
				acted = sprintf("%.1f%%", 100 * tot[w, c, "acted"] / ev)
				nonstock = sprintf("%.1f%%", 100 * tot[w, c, "nostock"] / ev)
			}
			printf "%-12s %-7s %8s %7s %7s %8.0f %8.0f %8.0f %8.0f %8.0f %9.0f %8.0f %9s %9.0f %9.0f\n",
			       w, c, ple, hc, acted, tot[w, c, "yield"] / k, tot[w, c, "park"] / k,
			       tot[w, c, "spin"] / k, tot[w, c, "stock"] / k,
			       tot[w, c, "idle"] / k, tot[w, c, "dy_ok"] / k,
			       tot[w, c, "halts"] / k, nonstock, tot[w, c, "holder"] / k,
			       tot[w, c, "nohold"] / k
			if (plots != "" && hasple[w, c] && ev)
				printf "%s %s %.4f %.4f %.4f %.4f\n", w, c,
				       tot[w, c, "yield"] / ev, tot[w, c, "park"] / ev,
				       tot[w, c, "spin"] / ev, tot[w, c, "stock"] / ev >plots "/acted.dat"
		}
	}
	print ""
	print "goals (the product'"'"'s; Documentation/results.rst)"
	goal("hackbench pvple/anchor >= 1.2:       ", speed("hackbench", "pvple", "anchor"), 1.2, 1)
	goal("hackbench pvple/ple >= 3.0:          ", speed("hackbench", "pvple", "ple"), 3.0, 1)
	goal("hackbench pvple within 2.0x of under:", speed("hackbench", "under", "pvple"), 2.0, 0)
	for (j = 1; j <= nw; j++) {
		w = wl[j]
		if (!n[w, "series"] || !n[w, "anchor"]) continue
		# within noise: the medians differ less than the anchor'"'"'s spread
		ok = m[w, "series"] >= mn[w, "anchor"] && m[w, "series"] <= mx[w, "anchor"]
		printf "  %-11s series within anchor min-max: %5s  %s\n", w,
		       speed(w, "series", "anchor"), ok ? "met" : "NOT met"
	}
	if (plots != "")
		for (j = 1; j <= nw; j++)
			for (o = 1; o <= 6; o++) {
				c = order[o]; w = wl[j]
				if (n[w, c])
					printf "%s %d %s %g %g %g\n", w, o, c, m[w, c],
					       mn[w, c], mx[w, c] >plots "/" w ".dat"
			}
}' "$in"

[ -n "$plots" ] && command -v gnuplot >/dev/null || exit 0
cd "$plots"
wls=$(ls *.dat 2>/dev/null | grep -v '^acted' | sed 's/\.dat$//' | tr '\n' ' ')
[ -n "$wls" ] || exit 0
{
	echo "set terminal png size $((420 * $(echo $wls | wc -w))),420 font ',9'"
	echo "set output 'guests-time.png'"
	echo "set multiplot layout 1,$(echo $wls | wc -w)"
	echo "set style fill solid 0.6; set boxwidth 0.6; set grid ytics"
	echo "set xtics rotate by -30; set yrange [0:*]; unset key"
	for w in $wls; do
		case $w in
		hackbench) echo "set title 'hackbench: time, s (lower is better)'" ;;
		*) echo "set title '$w: throughput (higher is better)'" ;;
		esac
		echo "plot '$w.dat' using 2:4:xtic(3) with boxes, '' using 2:4:5:6 with yerrorbars lc rgb 'black' pt 0"
	done
	echo "unset multiplot"
	if [ -f acted.dat ]; then
		echo "set output 'guests-acted.png'"
		echo "set terminal png size 640,420 font ',9'"
		echo "set title 'kvm-pvple: what became of the PLE exits (fraction)'"
		echo "set style data histograms; set style histogram rowstacked"
		echo "set key outside; set yrange [0:1]; set xtics norotate"
		echo "plot 'acted.dat' using 3:xtic(1) title 'directed yield', '' using 4 title 'park', '' using 5 title 'spin (target running)', '' using 6 title 'stock'"
	fi
} | gnuplot
