# The emulator's factor (scripts/testhost/bench.sh, bench_factor), from
# lines "# calib boot=B LEVEL KIND NS": calib (scripts/guest/calib.c) run
# on the machine under the test host (l0), in the test host (l1) and in a
# nested guest of the Linux-guest bench's setup (l2), in each of several
# boots.  Per boot, level and kind the median of its repeats; the factor
# is a level's median over l0's of the same boot.  Over boots: the median
# factor and its range.  Run with gb-stats.awk (gb_med).
/^# calib boot=/ {
	b = $3; sub(/^boot=/, "", b)
	k = b SUBSEP $4 SUBSEP $5
	v[k, ++n[k]] = $6
	if (!(b in seenb)) { seenb[b] = 1; boots[++nb] = b }
	if (!($5 in seenk)) { seenk[$5] = 1; kinds[++nk] = $5 }
}
function med(b, lvl, kind,    k, i, a) {
	k = b SUBSEP lvl SUBSEP kind
	if (!(k in n))
		return -1
	for (i = 1; i <= n[k]; i++)
		a[i] = v[k, i]
	return gb_med(a, n[k])
}
# fac(LVL, KIND): "median (min-max)" of the per-boot factor over boots;
# the l0 ns/op of the median boot in l0ns.
function fac(lvl, kind,    i, m, f, x, y, lo, hi, z, mz) {
	m = 0; mz = 0
	for (i = 1; i <= nb; i++) {
		x = med(boots[i], lvl, kind)
		y = med(boots[i], "l0", kind)
		if (y > 0)
			z[++mz] = y
		if (x < 0 || y <= 0)
			continue
		f[++m] = x / y
		if (m == 1 || f[m] < lo) lo = f[m]
		if (m == 1 || f[m] > hi) hi = f[m]
	}
	l0ns = mz ? gb_med(z, mz) : -1
	fboots = m
	if (!m)
		return "-"
	return sprintf("%.1f (%.1f-%.1f)", gb_med(f, m), lo, hi)
}
END {
	if (!nb) {
		print "factor: no calibration"
		exit 1
	}
	print "The emulator's factor: calib (scripts/guest/calib.c) in the test host"
	print "(L1) and in a nested guest of the Linux-guest bench's setup (L2),"
	print "against the machine under the test host (L0), per kind of work;"
	print "per boot the median of its repeats, over boots the median factor"
	print "and its range."
	print ""
	printf "%-8s %10s  %-22s %-22s %s\n", "kind", "L0 ns/op", "L1 factor (range)",
		"L2 factor (range)", "boots"
	for (i = 1; i <= nk; i++) {
		f1 = fac("l1", kinds[i])
		f2 = fac("l2", kinds[i])
		printf "%-8s %10.2f  %-22s %-22s %d\n", kinds[i], l0ns, f1, f2, fboots
	}
}
