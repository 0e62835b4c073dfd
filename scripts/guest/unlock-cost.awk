# The unlock bench's table (scripts/testhost/bench.sh, bench_unlock), from
# the "# cost block=B arm=A key=K secs=S pairs=N rounds=T:R ..." lines of
# scripts/guest/l1-unlock-cost.sh.  Run with gb-stats.awk:
#	awk -f gb-stats.awk -f unlock-cost.awk results.tap
# T is a round's time for N spin_lock()/spin_unlock() pairs, R for N pairs
# of the reference loop, which does the same lock operations without the
# unlock's end-of-section test (scripts/guest/l2-unlock-cost).  Per boot,
# the first round dropped (a cold cache): the index, the median over
# rounds of T / R, and the medians of T / N and R / N in nanoseconds.  Per
# block, on against off and the A/A row, off2 against off: paired ratios
# of the index (logs, t over blocks).
/^# cost block=/ {
	b = $3; sub(/^block=/, "", b)
	a = $4; sub(/^arm=/, "", a)
	k = $5; sub(/^key=/, "", k)
	np = $7; sub(/^pairs=/, "", np)
	sub(/^rounds=/, "", $8)
	n = 0
	for (i = 9; i <= NF; i++) {	# $8, the first round, is dropped
		split($i, f, ":")
		if (f[2] <= 0 || np <= 0)
			continue
		n++
		idx[n] = f[1] / f[2]
		t[n] = f[1] / np
		r[n] = f[2] / np
	}
	if (n < 1)
		next
	ix[b, a] = gb_med(idx, n)
	tn[b, a] = gb_med(t, n)
	rn[b, a] = gb_med(r, n)
	key[b, a] = k
	if (!(b in seen)) {
		seen[b] = 1
		blocks[++nb] = b
	}
}
# col(ARR, ARM): "median (min-max)" of ARR over the boots of ARM.
function col(arr, arm,    i, m, v, lo, hi) {
	m = 0
	for (i = 1; i <= nb; i++) {
		if (!((blocks[i], arm) in arr))
			continue
		v[++m] = arr[blocks[i], arm]
		if (m == 1 || v[m] < lo) lo = v[m]
		if (m == 1 || v[m] > hi) hi = v[m]
	}
	cnt = m
	return m ? sprintf("%.3f (%.3f-%.3f)", gb_med(v, m), lo, hi) : "-"
}
function row(what, x, y,    i, n, lr) {
	n = 0
	for (i = 1; i <= nb; i++) {
		if (!((blocks[i], x) in ix) || !((blocks[i], y) in ix))
			continue
		lr[++n] = log(ix[blocks[i], x] / ix[blocks[i], y])
	}
	gb_ci(lr, n)
	printf "%-22s %2d  %s\n", what, n, gb_fmt(gb_m, gb_h)
	rat_m[x] = gb_m
	rat_h[x] = gb_h
}
END {
	if (!nb) {
		print "unlock cost: no timed boot"
		exit 1
	}
	print "The guest series' unlock: uncontended spin_lock()/spin_unlock() pairs"
	print "in a 2-vCPU nested guest, against a reference loop of the same lock"
	print "operations without the out-of-line unlock (emulated ns per pair;"
	print "index = pairs / reference, per round, median of each boot's rounds);"
	print "key on: the host grants (ABI 5, PVPLE_F_SLICE)."
	print ""
	printf "%-5s %-4s %5s  %-26s %-26s %s\n", "arm", "key", "boots",
		"spin pair, ns (range)", "reference, ns (range)", "index (range)"
	split("on off off2", arms, " ")
	for (j = 1; j <= 3; j++) {
		kk = "-"
		for (i = 1; i <= nb; i++)
			if ((blocks[i], arms[j]) in key)
				kk = key[blocks[i], arms[j]]
		c1 = col(tn, arms[j]); c2 = col(rn, arms[j]); c3 = col(ix, arms[j])
		printf "%-5s %-4s %5d  %-26s %-26s %s\n", arms[j], kk, cnt, c1, c2, c3
	}
	print ""
	printf "%-22s %2s  %s\n", "index, paired by block", "n", "ratio [95% CI]"
	row("on / off (the cost)", "on", "off")
	row("off2 / off (A/A)", "off2", "off")
	print ""
	# The A/A row's reach: how far from 1 its interval goes.
	aa = (rat_m["off2"] < 0 ? -rat_m["off2"] : rat_m["off2"]) + rat_h["off2"]
	eff = rat_m["on"] < 0 ? -rat_m["on"] : rat_m["on"]
	if (rat_h["off2"] < 0 || rat_h["on"] < 0)
		print "verdict: too few blocks for an interval"
	else if (aa > eff)
		printf "verdict: no claim: the A/A interval reaches %.1f %%, the effect is %.1f %%; the cost is at most %+.1f %% (upper 95 %% bound)\n",
			100 * (exp(aa) - 1), 100 * (exp(eff) - 1),
			100 * (exp(rat_m["on"] + rat_h["on"]) - 1)
	else
		printf "verdict: the key's effect, %+.1f %% [%+.1f, %+.1f], is beyond the A/A row's reach (%.1f %%)\n",
			100 * (exp(rat_m["on"]) - 1),
			100 * (exp(rat_m["on"] - rat_h["on"]) - 1),
			100 * (exp(rat_m["on"] + rat_h["on"]) - 1),
			100 * (exp(aa) - 1)
}
