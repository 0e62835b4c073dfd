#!/bin/bash
# guests-table.sh RESULTS [PLOTDIR]: the Linux-guest benchmark's tables
# from the lines of scripts/guest/l1-guests-bench.sh (any other line is
# ignored), with the statistics of scripts/guest/gb-stats.awk.
#
# Tier B ("# cfg=C block=B wl=W value=V k=v ..." lines; "round=" of older
# results is read as the block): per workload and configuration the
# median, min-max and n, then, paired within each block, the speed ratio
# to the anchor: speed is 1/time for hackbench, the figure itself for the
# throughputs, so above 1 is faster.  Per block b the log ratio
# ln(speed(C, b) / speed(anchor, b)); over the blocks their mean, whose
# exponential is the geometric mean of the ratios, with a 95 % confidence
# interval (Student t on the logs), the number of blocks and how many of
# them were above 1.  anchor2/anchor, the anchor against its own copy,
# is the A/A row: the noise.  A ratio is told apart from 1 ("beyond the
# A/A noise") only where |ln ratio| exceeds the A/A interval's half-width
# (in logs); else it is "inside the noise".  The co-runner's rate beside
# each configuration is paired the same way against its rate beside the
# anchor.  "x fair" is the speed as a fraction of the fair-share limit:
# with C CPUs, V lock vCPUs and H co-runner vCPUs the lock guest gets
# C*V/(V+H) CPUs overcommitted, against min(U, C) undercommitted (U:
# under's vCPUs), so the limit is under's speed * C*V/(V+H) / min(U, C),
# paired with under in the same block; 1.0 is the ceiling of any fix of
# lock-holder preemption.
#
# Steal: "# steal cfg=C block=B wl=W frac=F" lines (scripts/guest/
# steal-rec.sh, L0's steal over that workload) drop a run whose F exceeds
# GB_STEAL_MAX (0.05: 5 % of L0's CPU time taken by its own hypervisor);
# the drops are counted and named.
#
# Tier A ("# ta-..." lines): each window's rate of locktorture
# acquisitions (or of dbench's load-file lines per client, with wl=dbench
# on the ta-setup line), from the guest's cumulative counts (interpolated
# at the window's ends, moved to the guest's clock, less a guard time at
# its start), and per ABBA group (off, auto, auto, off) the log ratio
# (ln B1 + ln B2 - ln A1 - ln A2) / 2, which a linear drift does not
# move; their geometric mean with a 95 % CI.
#
# With PLOTDIR, also writes PLOTDIR/*.dat and, where gnuplot is
# installed, PLOTDIR/guests-time.png (median with min-max per
# configuration and workload), PLOTDIR/guests-ratio.png (the paired
# ratios with their CIs, a line at 1) and PLOTDIR/guests-acted.png (what
# became of the PLE exits).  Reading is in Documentation/results.rst.
set -euo pipefail
in=$1 plots=${2:-}
lib=$(dirname "$0")/gb-stats.awk
[ -z "$plots" ] || mkdir -p "$plots"

awk -v plots="$plots" -v stealmax="${GB_STEAL_MAX:-0.05}" "$(cat "$lib")"'
# kv(FROM): the "k=v" fields from FROM on, in kv[].
function kvs(from,    i, p) {
	delete kv
	for (i = from; i <= NF; i++) {
		p = index($i, "=")
		if (p) kv[substr($i, 1, p - 1)] = substr($i, p + 1)
	}
}
# pair(SP, W, A, B): the per-block logs of SP[W, A, b] / SP[W, B, b] over
# the blocks that have both, into gb_ci; returns their number.
function pair(sp, w, a, b,    i, bl, k, x) {
	k = 0
	for (i = 1; i <= nb[w]; i++) {
		bl = blk[w, i]
		if (((w, a, bl) in sp) && ((w, b, bl) in sp))
			x[++k] = log(sp[w, a, bl] / sp[w, b, bl])
	}
	return gb_ci(x, k)
}
# ratio(W, A, B): "G [LO, HI]" of the speed ratio A/B, or "-".
function ratio(w, a, b) {
	return pair(speed, w, a, b) ? gb_fmt(gb_m, gb_h) : "-"
}
# one goal line from a paired ratio: at least (atleast=1) or at most BOUND
function goal(text, w, a, b, bound, atleast,    g, verdict, r) {
	verdict = "-"; r = "-"
	if (pair(speed, w, a, b)) {
		g = exp(gb_m); r = gb_fmt(gb_m, gb_h)
		verdict = (atleast ? (g >= bound) : (g <= bound)) ? "met" : "NOT met"
		if (!(w in aah) || aah[w] < 0)
			verdict = verdict " (no A/A interval)"
		else if (!aa_ok(w, gb_m))
			verdict = verdict " (inside the noise)"
	}
	printf "  %s %-22s  %s\n", text, r, verdict
}
# num(X): a figure, to two decimals below 10000, whole above
function num(x) {
	return x < 10000 ? sprintf("%.2f", x) : sprintf("%.0f", x)
}
# aa_ok(W, M): a log ratio M beyond the A/A half-width of workload W
function aa_ok(w, m) {
	return (w in aah) && aah[w] >= 0 && (m < 0 ? -m : m) > aah[w]
}
# interp(T): the guest'"'"'s cumulative acquisitions at its time T, linear
# between progress lines; -1 outside them.  interp_in(T, N, U, W): the
# same over any N (time, count) pairs: the co-runner'"'"'s too.
function interp_in(t, n, u, w,    lo, hi, mid) {
	if (n < 2 || t < u[1] || t > u[n])
		return -1
	lo = 1; hi = n
	while (hi - lo > 1) {
		mid = int((lo + hi) / 2)
		if (u[mid] <= t) lo = mid; else hi = mid
	}
	if (u[hi] == u[lo])
		return w[lo]
	return w[lo] + (w[hi] - w[lo]) * (t - u[lo]) / (u[hi] - u[lo])
}
function interp(t) {
	return interp_in(t, np, pu, pw)
}
# wendof(I): where window I ends on L1'"'"'s clock: at the next window, or
# at a ta-end (the last window of a tier K placement, or of the run).
function wendof(i) {
	return (i in wstop) ? wstop[i] : (i < nwin ? wt[i + 1] : wend)
}
# wnext(I): the key of the snapshot (ta-cnt, CPU time) at window I'"'"'s end.
function wnext(i) {
	return (i in wstop || i == nwin) ? "x" i : i + 1
}
# winrate(I, OFF, N, U, W): window I'"'"'s rate less its guard, on a clock
# OFF behind L1'"'"'s; -1 without data.
function winrate(i, off, n, u, w,    t1, gs, ge, a0, a1) {
	t1 = wendof(i)
	gs = wt[i] - off + guard; ge = t1 - off
	a0 = interp_in(gs, n, u, w); a1 = interp_in(ge, n, u, w)
	return (ge > gs && a0 >= 0 && a1 >= 0) ? (a1 - a0) / (ge - gs) : -1
}
# winrate_in(I, OFF, N, U, W): the same from the points inside the window
# only (tier K: the guest was stopped before it, so a line interpolated
# across the stop would spread the window'"'"'s work over the stop): the
# slope between the first and the last, at least a second apart; -1
# without.
function winrate_in(i, off, n, u, w,    t1, gs, ge, j, f, l) {
	t1 = wendof(i)
	gs = wt[i] - off + guard; ge = t1 - off
	f = l = 0
	for (j = 1; j <= n; j++)
		if (u[j] >= gs && u[j] <= ge) {
			if (!f) f = j
			l = j
		}
	return (f && u[l] - u[f] >= 1) ? (w[l] - w[f]) / (u[l] - u[f]) : -1
}
# arm_sums(LIST, NAMES, KEY, SUM, TT): the ta-cnt counters named in LIST
# (split into NAMES) summed over the windows of each arm, SUM[arm, name],
# and the seconds of the arm, TT[arm]; only windows with KEY at both ends
# count.  Returns how many names.
function arm_sums(list, names, key, sum, tt,    i, j, n, nx, arm, t) {
	n = split(list, names, " ")
	for (i = 1; i <= nwin; i++) {
		nx = wnext(i)
		if (!((i, key) in tcnt) || !((nx, key) in tcnt))
			continue
		arm = warm(i)
		t = wendof(i) - wt[i]
		if (t <= 0)
			continue
		tt[arm] += t
		for (j = 1; j <= n; j++)
			sum[arm, names[j]] += tcnt[nx, names[j]] - tcnt[i, names[j]]
	}
	return n
}
# slice_summary(): the slice counters of the lock guest (ta-cnt, noted at
# the start of each window and at the end) per second of the A and B
# windows, by their place in the ABBA group.
function slice_summary(    j, k, t, tt, sum, n, names, fa, fb) {
	n = arm_sums("requests in_cs granted steps expired cut left done done_idle ns still_in_cs waiting desched_cs ple_exits held_spin yield_ok yield_reached yield_missed",
		     names, "desched_cs", sum, tt)
	if (!(tt["A"] > 0 && tt["B"] > 0)) {
		if (nwin)
			printf "tier %s slice counters: not recorded\n", (tierk ? "K" : "A")
		return
	}
	if (tierk)
		printf "tier K guest B'"'"'s counters per second, A / B windows (%.0f s / %.0f s; stopped in A):\n", tt["A"], tt["B"]
	else
		printf "tier A slice counters per second, A / B windows (%.0f s / %.0f s):\n", tt["A"], tt["B"]
	for (j = 1; j <= n; j++) {
		k = names[j]
		fa = sum["A", k] / tt["A"]; fb = sum["B", k] / tt["B"]
		printf "  %-12s %10.1f / %10.1f", k, fa, fb
		if (k == "desched_cs" && fa > 0 && !tierk)
			printf "   B/A %.3f: %s by %.0f %%", fb / fa, (fb <= fa ? "falls" : "rises"),
			       100 * (fb <= fa ? 1 - fb / fa : fb / fa - 1)
		printf "\n"
	}
	for (j = 1; j <= 2; j++) {
		k = j == 1 ? "A" : "B"
		t = sum[k, "yield_reached"] + sum[k, "yield_missed"]
		printf "  yields whose target ran before the next exit, %s windows: %s\n", k,
		       (t > 0 ? sprintf("%d of %d (%.1f %%)", sum[k, "yield_reached"], t,
					100 * sum[k, "yield_reached"] / t) : "none")
	}
}
# l1_summary(): what L1 did to the guests, per second of the A and B
# windows, from ta-cnt'"'"'s l_* and co_* fields: the running lock guest'"'"'s
# vCPU threads switched out while runnable (l_switches: a preemption or a
# yield) or blocked (l_vswitches), the co-runner'"'"'s switched out, and the
# co-runner VM'"'"'s exits and exits for a host interrupt.  The co-runner
# runs in every window, so its rows are a paired view of what a
# configuration costs its neighbour besides CPU time.
function l1_summary(    j, k, tt, sum, n, names, fa, fb) {
	n = arm_sums("l_switches l_vswitches co_switches co_exits co_irq_exits",
		     names, "co_switches", sum, tt)
	if (!(tt["A"] > 0 && tt["B"] > 0))
		return
	print "L1 per second, A / B windows: vCPU threads switched out (the running lock guest'"'"'s, l_; the co-runner'"'"'s, co_), the co-runner VM'"'"'s exits:"
	for (j = 1; j <= n; j++) {
		k = names[j]
		fa = sum["A", k] / tt["A"]; fb = sum["B", k] / tt["B"]
		printf "  %-12s %10.1f / %10.1f", k, fa, fb
		if (fa > 0)
			printf "   B/A %.3f", fb / fa
		printf "\n"
	}
}
# kvm_summary: tier K'"'"'s KVM statistics of each lock guest'"'"'s VM (tk-kvm),
# from the snapshot after the settle time to the one after the windows of
# each placement: a guest is stopped outside its own windows, so the
# difference is what its own windows cost KVM.  Summed per kernel (A, B;
# a swapped placement runs B in guest a), per second of that kernel'"'"'s
# windows, and B/A per unit of the workload'"'"'s progress (the mean of the
# kernel'"'"'s window rates): what a kernel that does more work per CPU second
# than the other does with fewer exits of which kind.
function kvm_summary(    i, j, p, g, arm, key, n, names, t, r, nr, fa, fb, tpg, ks, ksn, ok) {
	n = split("exits irq_exits irq_window_exits insn_emulation io_exits halt_exits halt_wakeup hypercalls preemption_reported preemption_other req_event directed_yield_attempted", names, " ")
	# Only the guests of placements with both snapshots count: their
	# windows'"'"' time, their rates and their statistics alike.
	for (p = 1; p <= nplace; p++)
		for (g = 0; g < 2; g++)
			ok[p, g] = ((p, g, "settled", "exits") in tkv) && ((p, g, "end", "exits") in tkv)
	for (i = 1; i <= nwin; i++) {
		g = wgst[i] == "b"
		if (!ok[wpl[i], g])
			continue
		arm = ((g == 0) == !pswap[wpl[i]]) ? "A" : "B"
		t[arm] += wendof(i) - wt[i]
		if (rate[i] > 0) { r[arm] += rate[i]; nr[arm]++ }
	}
	for (p = 1; p <= nplace; p++)
		for (g = 0; g < 2; g++) {
			if (!ok[p, g])
				continue
			arm = ((g == 0) == !pswap[p]) ? "A" : "B"
			for (j = 1; j <= n; j++)
				ks[arm, names[j]] += tkv[p, g, "end", names[j]] - tkv[p, g, "settled", names[j]]
			ksn[arm]++
		}
	if (!(t["A"] > 0 && t["B"] > 0 && nr["A"] && nr["B"] && ksn["A"] && ksn["B"]))
		return
	r["A"] /= nr["A"]; r["B"] /= nr["B"]
	printf "KVM per second of each kernel'"'"'s own windows (its VM'"'"'s statistics, %d / %d placements), A / B, and B/A per unit of work (rates %.0f / %.0f):\n",
	       ksn["A"], ksn["B"], r["A"], r["B"]
	for (j = 1; j <= n; j++) {
		key = names[j]
		fa = ks["A", key] / t["A"]; fb = ks["B", key] / t["B"]
		printf "  %-25s %9.1f / %9.1f", key, fa, fb
		if (fa > 0)
			printf "   per work B/A %.3f", (fb / r["B"]) / (fa / r["A"])
		printf "\n"
	}
}
# kfit(M, S, N): the kernels'"'"' log ratio over N placements, from each
# placement'"'"'s M[p] (kernel B over kernel A) and S[p] (1, or -1 where
# the kernels swapped guests).  With both kinds of placement, least
# squares of M = kernel + place * S (place: guest b'"'"'s over guest a'"'"'s,
# whichever kernel it ran), t on N - 2 degrees of freedom: the place
# cancels instead of widening the interval; else the mean and t on N - 1.
# Sets kf_m, kf_h (-1: no interval), kf_r, kf_rh (the place and its
# half-width), kf_var (the residual variance), kf_pos (M above 0),
# kf_nsw (swapped placements).
function kfit(m, sg, n,    j, ms, ss, sxx, sxy, e, rss) {
	kf_m = kf_r = kf_var = 0; kf_h = kf_rh = -1; kf_pos = kf_nsw = 0
	for (j = 1; j <= n; j++) {
		if (m[j] > 0) kf_pos++
		if (sg[j] < 0) kf_nsw++
	}
	if (!kf_nsw || kf_nsw == n) {
		gb_ci(m, n)
		kf_m = gb_m; kf_h = gb_h; kf_var = gb_var(m, n)
		return
	}
	for (j = 1; j <= n; j++) { ms += m[j] / n; ss += sg[j] / n }
	for (j = 1; j <= n; j++) {
		sxx += (sg[j] - ss) ^ 2
		sxy += (sg[j] - ss) * (m[j] - ms)
	}
	kf_r = sxy / sxx
	kf_m = ms - kf_r * ss
	for (j = 1; j <= n; j++) {
		e = m[j] - kf_m - kf_r * sg[j]
		rss += e * e
	}
	if (n < 3)
		return
	kf_var = rss / (n - 2)
	kf_h = gb_t975(n - 2) * sqrt(kf_var * (1 / n + ss * ss / sxx))
	kf_rh = gb_t975(n - 2) * sqrt(kf_var / sxx)
}
# warm(I): the arm of window I, "A" or "B": the kernel that ran in it
# (a window'"'"'s place in its ABBA group, turned over where the kernels
# swapped guests).
function warm(i,    r) {
	r = ((i - 1) % 4 == 0 || (i - 1) % 4 == 3) ? "A" : "B"
	if (pswap[wpl[i]])
		r = r == "A" ? "B" : "A"
	return r
}
# places(X, XP, K, PM, PN, PV): the mean of the group logs X[1..K] of
# each placement (XP: the group'"'"'s) in PM[p], their number in PN[p], and
# the variance of that mean from its own groups in PV[p] (0 for one).
function places(x, xp, k, pm, pn, pv,    j, p, d, ss) {
	for (p = 1; p <= nplace; p++) { pm[p] = 0; pn[p] = 0; pv[p] = 0 }
	for (j = 1; j <= k; j++) { pm[xp[j]] += x[j]; pn[xp[j]]++ }
	for (p = 1; p <= nplace; p++)
		if (pn[p]) pm[p] /= pn[p]
	for (p = 1; p <= nplace; p++) {
		ss = 0
		for (j = 1; j <= k; j++)
			if (xp[j] == p) { d = x[j] - pm[p]; ss += d * d }
		if (pn[p] > 1) pv[p] = ss / (pn[p] - 1) / pn[p]
	}
}
# cpu_summary(): what each window cost in L1'"'"'s CPU time (ta-win'"'"'s
# cpu_* fields, USER_HZ ticks of the QEMU processes): the running lock
# guest'"'"'s and the co-runner'"'"'s CPUs, and their work per CPU second, in
# the same ABBA groups.  A guest ahead because it got more CPU differs
# from one whose work ran faster on the same CPU (the emulator'"'"'s speed).
function cpu_summary(    i, j, g, nx, dt, n1, n2, n3, n4, ca, cb, ha, hb, na, nb, lc, hc, le, he, y1, y2, y3, y4, sp) {
	for (i = 1; i <= nwin; i++) {
		lc[i] = hc[i] = le[i] = he[i] = -1
		g = tierk ? "cpu_" wgst[i] : "cpu_l"
		nx = wnext(i)
		dt = wendof(i) - wt[i]
		if (dt <= 0 || !((i, g) in wcpu) || !((nx, g) in wcpu))
			continue
		lc[i] = (wcpu[nx, g] - wcpu[i, g]) / 100 / dt
		hc[i] = (wcpu[nx, "cpu_co"] - wcpu[i, "cpu_co"]) / 100 / dt
		if (lc[i] > 0 && rate[i] > 0) le[i] = rate[i] / lc[i]
		if (hc[i] > 0 && hrate[i] > 0) he[i] = hrate[i] / hc[i]
		sp[i] = (he[i] > 0 && rate[i] > 0) ? rate[i] / he[i] : -1
		if (warm(i) == "A") { ca += lc[i]; ha += hc[i]; na++ }
		else { cb += lc[i]; hb += hc[i]; nb++ }
	}
	if (!na || !nb)
		return
	n1 = n2 = n3 = n4 = 0
	for (j = 1; j <= ng; j++) {
		i = gi[j]
		g = pswap[wpl[i]] ? -1 : 1
		if (pos4(lc, i)) y1[++n1] = g * abba(lc, i)
		if (pos4(le, i)) y2[++n2] = g * abba(le, i)
		if (pos4(hc, i)) y3[++n3] = g * abba(hc, i)
		if (pos4(he, i)) y4[++n4] = g * abba(he, i)
	}
	printf "L1 CPUs used, A / B windows: lock guest %.2f / %.2f, co-runner %.2f / %.2f (of %d)\n",
	       ca / na, cb / nb, ha / na, hb / nb, C
	if (nplace > 1)
		print "  (below: the groups pooled, which leaves the placements'"'"' spread out)"
	gb_ci(y1, n1); printf "  lock guest B/A: CPU time %s", (n1 ? gb_fmt(gb_m, gb_h) : "-")
	gb_ci(y2, n2); printf ", work per CPU second %s\n", (n2 ? gb_fmt(gb_m, gb_h) : "-")
	gb_ci(y3, n3); printf "  co-runner B/A:  CPU time %s", (n3 ? gb_fmt(gb_m, gb_h) : "-")
	gb_ci(y4, n4); printf ", work per CPU second %s\n", (n4 ? gb_fmt(gb_m, gb_h) : "-")
	speed_summary(sp)
}
# speed_summary(SP): B/A of the lock rate over the co-runner'"'"'s work per
# CPU second in the same window (SP[i], -1 where either is missing).  The
# co-runner'"'"'s work per CPU second is the emulator'"'"'s speed in that
# window: TCG runs the whole L1 faster or slower from window to window
# and from one placement of the guests to the next, and the co-runner
# moves with the lock guest (results.rst, "Tier K in placements").  A
# guest that takes CPU time from the co-runner does not raise the
# divisor: that lowers the co-runner'"'"'s work per wall second, not per
# CPU second (its own extra work still counts, in the lock rate).
# Chosen after the runs of 2026-12-03 morning; runs after it test it.
function speed_summary(sp,    i, j, k, p, y, yp, n, sm, sn, sv, m, sg) {
	k = 0
	for (j = 1; j <= ng; j++) {
		i = gi[j]
		if (!pos4(sp, i))
			continue
		y[++k] = (pswap[wpl[i]] ? -1 : 1) * abba(sp, i)
		yp[k] = wpl[i]
	}
	if (!k) {
		print "speed-indexed B/A: - (no group with the co-runner'"'"'s CPU time in all four windows)"
		return
	}
	if (nplace > 1) {
		places(y, yp, k, sm, sn, sv)
		n = 0
		for (p = 1; p <= nplace; p++)
			if (sn[p]) { m[++n] = sm[p]; sg[n] = pswap[p] ? -1 : 1 }
		kfit(m, sg, n)
		printf "speed-indexed B/A (lock rate over the co-runner'"'"'s work per CPU second): %s, %d placements of %d groups, %d above 1, half-width %s, placements'"'"' SD %s\n",
		       gb_fmt(kf_m, kf_h), n, k, kf_pos,
		       halfw(kf_h),
		       (kf_h < 0 ? "-" : sprintf("%.3f in ln", sqrt(kf_var)))
		if (kf_nsw && kf_nsw < n)
			printf "  guest B'"'"'s place over guest A'"'"'s, speed-indexed: %s\n", gb_fmt(kf_r, kf_rh)
	} else {
		gb_ci(y, k)
		printf "speed-indexed B/A (lock rate over the co-runner'"'"'s work per CPU second): %s, %d groups, %d above 1, half-width %s\n",
		       gb_fmt(gb_m, gb_h), k, gb_pos,
		       halfw(gb_h)
	}
}
# fair_k(M, H): tier K with GB_TK_B=under: B/A is under over the anchor
# (exp(M), half-width H in ln), and the anchor'"'"'s speed as a fraction of
# the fair-share limit, under'"'"'s x C*V/(V+H)/min(U,C) as in tier B'"'"'s
# table, is exp(ln(min(U,C)*(V+H)/(C*V)) - M), its interval the same
# half-width: the ceiling of any fix, read in one boot.
function fair_k(m, h,    f) {
	if (!tierk || bmode != "under" || !(C && V && U))
		return
	f = log((U < C ? U : C) * (V + H) / (C * V)) - m
	printf "  the anchor at %s of the fair-share limit (under x %d*%d/(%d+%d)/%d): the limit is %s the anchor\n",
	       gb_fmt(f, h), C, V, V, H, (U < C ? U : C), gb_fmt(-f, h)
}
# halfw(H): a CI half-width H in ln as a percentage of the ratio, "-"
# where there is none (H < 0).
function halfw(h) {
	return h < 0 ? "-" : sprintf("%.1f %%", 100 * (exp(h) - 1))
}
# pos4(R, I): whether the four windows of the group at I all have a rate.
function pos4(r, i) {
	return r[i] > 0 && r[i + 1] > 0 && r[i + 2] > 0 && r[i + 3] > 0
}
# abba(R, I): the ABBA group at window I as a log ratio, B over A.
function abba(r, i) {
	return (log(r[i + 1]) + log(r[i + 2]) - log(r[i]) - log(r[i + 3])) / 2
}
# L1'"'"'s serial console ends its lines with CR LF: a last field would
# keep the CR ("first=a\r").
{ sub(/\r$/, "") }
$1 != "#" { next }
$2 == "gb-setup" {
	kvs(3)
	C = kv["cpus"]; V = kv["vcpus"]; H = kv["hogs"]; U = kv["under"]
	next
}
# Older results: only the human header.
$2 == "guests-bench:" && !C {
	if (match($0, /[0-9]+-vCPU lock guest/)) V = substr($0, RSTART, RLENGTH) + 0
	if (match($0, /[0-9]+-vCPU co-runner/)) H = substr($0, RSTART, RLENGTH) + 0
	if (match($0, /[0-9]+ vCPUs undercommitted/)) U = substr($0, RSTART, RLENGTH) + 0
	if (match($0, /[0-9]+ host CPUs/)) C = substr($0, RSTART, RLENGTH) + 0
	next
}
$2 == "steal" {
	kvs(3)
	steal[kv["cfg"], kv["block"], kv["wl"]] = kv["frac"]
	next
}
$2 ~ /^cfg=/ && $3 ~ /^(round|block)=/ {
	kvs(2)
	R++
	rc[R] = kv["cfg"]; rw[R] = kv["wl"]; rv[R] = kv["value"]
	rb[R] = ("block" in kv) ? kv["block"] : kv["round"]
	rh[R] = ("hograte" in kv) ? kv["hograte"] : "none"
	for (f in kv)
		if (kv[f] ~ /^[0-9]+$/) rk[R, f] = kv[f]
	rple[R] = kv["ple"] ~ /^[0-9]+$/
	next
}
$2 == "ta-setup" {
	kvs(3); guard = kv["guard"] + 0; bmode = ("b" in kv) ? kv["b"] : "auto"
	amode = ("a" in kv) ? kv["a"] : "off"; taparam = ("param" in kv) ? kv["param"] : "mode"
	tawl = kv["wl"]; tkfirst = kv["first"]; l2args = kv["l2args"]
	next
}
$2 == "pvple-params" { pvparams = substr($0, index($0, $3)); next }
# What L1'"'"'s scheduler ran with: GB_SCHED_FEAT'"'"'s features and its base
# slice (GB_SCHED_SLICE_NS or L1'"'"'s own).
$2 == "sched-feature" { schedf = schedf " " $3; next }
$2 == "sched-base-slice" { kvs(3); sbslice = kv["ns"]; next }
$2 == "ta-clock" {
	kvs(3)
	if ("g" in kv) goff[kv["g"]] = hgoff[kv["g"]] = kv["offset"] + 0; else offset = kv["offset"] + 0
	next
}
# The co-runner runs through all of tier K'"'"'s placements: the least of
# its offsets, each the least of its samples.
$2 == "ta-hogclock" {
	kvs(3)
	if (!hogclock || kv["offset"] + 0 < hoffset) hoffset = kv["offset"] + 0
	hogclock = 1
	next
}
$2 == "ta-hog" { kvs(3); nh++; hu[nh] = kv["up"] + 0; hw[nh] = kv["total"] + 0; next }
$2 == "ta-win" {
	kvs(3)
	nwin++; wt[nwin] = kv["l1"] + 0; wm[nwin] = kv["mode"]; wg[nwin] = kv["group"]
	wgst[nwin] = ("guest" in kv) ? kv["guest"] : ""
	if (wgst[nwin] != "") tierk = 1
	wpl[nwin] = ("place" in kv) ? kv["place"] + 0 : 1
	if (wpl[nwin] > nplace) nplace = wpl[nwin]
	for (k in kv) if (k ~ /^cpu_/) wcpu[nwin, k] = kv[k] + 0
	next
}
$2 == "ta-end" {
	kvs(3); wend = kv["l1"] + 0; wstop[nwin] = wend
	for (k in kv) if (k ~ /^cpu_/) wcpu["x" nwin, k] = kv[k] + 0
	next
}
# A placement'"'"'s clocks are its own: one whose guests never settled has
# none, and its progress lines are not read on the last one'"'"'s.
$2 == "tk-place" {
	kvs(3); pfirst[kv["place"] + 0] = kv["first"]; pswap[kv["place"] + 0] = kv["swap"] + 0
	delete goff
	next
}
# tk-kvm when=settled|end[-pP] g=a|b KEY=N ...: kvm_summary'"'"'s.
$2 == "tk-kvm" {
	kvs(3)
	split(kv["when"], tw2, "-p")
	p = (2 in tw2) ? tw2[2] + 0 : 1
	g = kv["g"] == "b"
	for (f in kv)
		if (kv[f] ~ /^[0-9]+$/) tkv[p, g, tw2[1], f] = kv[f]
	delete tw2
	next
}
$2 == "tk-mem" {
	kvs(3)
	if (!((kv["when"], kv["g"]) in tkm)) tkw[++ntkw] = kv["when"] SUBSEP kv["g"]
	if (kv["g"] == "l1")
		tkm[kv["when"], kv["g"]] = sprintf("%.0f MB free, %.0f MB in huge pages",
						   kv["free"] / 1024, kv["huge"] / 1024)
	else
		tkm[kv["when"], kv["g"]] = sprintf("%.0f of %.0f MB in huge pages",
						   kv["huge"] / 1024, kv["rss"] / 1024)
	next
}
$2 == "ta-cnt" {
	kvs(3)
	# "end": the last window'"'"'s end, in the same keys as wnext().
	if (kv["win"] == "end") kv["win"] = "x" nwin
	for (k in kv) if (k != "win") tcnt[kv["win"], k] = kv[k] + 0
	next
}
$2 == "ta-progress" {
	kvs(3)
	# Tier K: on L1'"'"'s clock at once, with this placement'"'"'s offset (its
	# ta-clock came before its windows, these lines after them).
	if ((kv["g"] == "a" || kv["g"] == "b") && !(kv["g"] in goff))
		next
	if (kv["g"] == "a") { npa++; pua[npa] = kv["up"] + goff["a"]; pwa[npa] = kv["writes"] + 0 }
	else if (kv["g"] == "b") { npb++; pub[npb] = kv["up"] + goff["b"]; pwb[npb] = kv["writes"] + 0 }
	else { np++; pu[np] = kv["up"] + 0; pw[np] = kv["writes"] + 0 }
	next
}
END {
	split("under underpv ple anchor anchor2 gyield pvple series", order, " ")
	no = 8
	label["under"] = "undercommitted reference"
	label["underpv"] = "undercommitted, guest-pvlock + kvm-pvple"
	label["ple"] = "unpatched, nopvspin (PLE alone)"
	label["anchor"] = "unpatched, pvqspinlock: the anchor"
	label["anchor2"] = "the anchor again: the A/A arm"
	label["gyield"] = "unpatched + guest-only yield"
	label["pvple"] = "guest-pvlock + kvm-pvple: the product"
	label["series"] = "guest-pvlock, no module"
	unit["hackbench"] = "s"; lower["hackbench"] = 1
	unit["dbench"] = "MB/s"; unit["locktorture"] = "writes/s"

	# Steal first: a dropped run is no run.
	for (r = 1; r <= R; r++) {
		if (!((rc[r], rb[r], rw[r]) in steal)) {
			nosteal++
			continue
		}
		s = steal[rc[r], rb[r], rw[r]] + 0
		nsteal++
		if (s > maxsteal) maxsteal = s
		if (s > stealmax + 0) {
			dropped[r] = 1; ndrop++
			droplist = droplist sprintf(" %s/%s/block %s (%.1f %%)", rw[r], rc[r], rb[r], 100 * s)
		}
	}
	split("ple hcpark acted yield park spin stock idle dy_ok halts nostock holder nohold reached missed", cf, " ")
	for (r = 1; r <= R; r++) {
		if (dropped[r] || rv[r] !~ /^[0-9.]+$/ || rv[r] + 0 <= 0)
			continue
		w = rw[r]; c = rc[r]; b = rb[r]
		if ((w, c, b) in speed)
			continue
		if (!(w in wseen)) { wseen[w] = 1; wl[++nw] = w }
		if (!((w, b) in bseen)) { bseen[w, b] = 1; blk[w, ++nb[w]] = b }
		k = ++n[w, c]
		v[w, c, k] = rv[r] + 0
		speed[w, c, b] = lower[w] ? 1 / rv[r] : rv[r]
		if (rh[r] ~ /^[0-9.]+$/ && rh[r] + 0 > 0)
			hog[w, c, b] = rh[r] + 0
		for (i in cf)
			if ((r, cf[i]) in rk) tot[w, c, cf[i]] += rk[r, cf[i]]
		if (rple[r]) hasple[w, c] = 1
	}

	if (R) {
		if (C && V && H && U) {
			share = C * V / (V + H); ucpus = U < C ? U : C
			printf "fair share: %d CPUs, %d lock vCPUs beside %d co-runner vCPUs: the lock guest gets %.2f CPUs, against %d undercommitted\n",
			       C, V, H, share, ucpus
		} else
			print "fair share: the setup line is missing, not computed"
		if (nsteal)
			printf "L0 steal over each timed workload: %d runs recorded, at most %.1f %%; %d dropped above %.1f %%%s\n",
			       nsteal, 100 * maxsteal, ndrop, 100 * stealmax, ndrop ? ":" droplist : ""
		if (nosteal)
			printf "L0 steal not recorded for %d runs (kept)\n", nosteal
		print ""
		# The A/A half-width of each workload, for the claim gate.
		for (j = 1; j <= nw; j++)
			if (pair(speed, wl[j], "anchor2", "anchor"))
				aah[wl[j]] = gb_h
		printf "%-21s %-8s %3s %10s %21s  %-24s %5s  %-9s %6s\n", "workload", "config", "n",
		       "median", "min-max", "vs anchor [95 % CI]", ">1", "co/anchor", "x fair"
		for (j = 1; j <= nw; j++) {
			w = wl[j]
			for (o = 1; o <= no; o++) {
				c = order[o]
				if (!n[w, c]) continue
				delete a
				lo = hi = v[w, c, 1]
				for (k = 1; k <= n[w, c]; k++) {
					a[k] = v[w, c, k]
					if (a[k] < lo) lo = a[k]
					if (a[k] > hi) hi = a[k]
				}
				m[w, c] = gb_med(a, n[w, c]); mn[w, c] = lo; mx[w, c] = hi
				vs = "-"; signs = "-"
				if (c == "anchor")
					vs = "1 (the reference)"
				else if ((k = pair(speed, w, c, "anchor"))) {
					vs = gb_fmt(gb_m, gb_h); signs = gb_pos "/" k
				}
				co = "-"
				if (c == "anchor")
					co = pair(hog, w, c, c) ? "1" : "-"
				else if (pair(hog, w, c, "anchor"))
					co = sprintf("%.3f", exp(gb_m))
				fair = "-"
				if (share && c != "under" && c != "underpv" && pair(speed, w, c, "under"))
					fair = sprintf("%.3f", exp(gb_m) * ucpus / share)
				printf "%-21s %-8s %3d %10s %21s  %-24s %5s  %-9s %6s\n",
				       w " " unit[w], c, n[w, c], num(m[w, c]), num(mn[w, c]) "-" num(mx[w, c]),
				       vs, signs, co, fair
				if (plots != "")
					printf "%s %d %s %g %g %g\n", w, o, c, m[w, c],
					       mn[w, c], mx[w, c] >(plots "/" w ".dat")
			}
		}
		print ""
		print "configurations:"
		for (o = 1; o <= no; o++)
			printf "  %-8s %s\n", order[o], label[order[o]]
		print ""
		print "paired ratios: per block, the first'"'"'s speed over the second'"'"'s (above 1: faster);"
		print "geometric mean over the blocks, 95 % CI (t on the logs), blocks, blocks above 1;"
		print "claim: beyond the A/A noise where |ln ratio| exceeds the A/A CI'"'"'s half-width (logs)"
		printf "%-12s %-15s %-24s %3s %5s %8s %8s  %s\n", "workload", "ratio", "geomean [95 % CI]",
		       "n", ">1", "|ln r|", "A/A h", "claim"
		nr = split("anchor2/anchor pvple/anchor series/anchor gyield/anchor ple/anchor under/anchor underpv/under pvple/gyield pvple/series pvple/ple", rows, " ")
		for (j = 1; j <= nw; j++) {
			w = wl[j]
			for (q = 1; q <= nr; q++) {
				split(rows[q], ab, "/")
				k = pair(speed, w, ab[1], ab[2])
				if (!k) continue
				lm = gb_m < 0 ? -gb_m : gb_m
				if (rows[q] == "anchor2/anchor")
					claim = "(the A/A)"
				else if (gb_h < 0)
					claim = "one block: no interval"
				else if (!(w in aah) || aah[w] < 0)
					claim = "no A/A interval"
				else
					claim = aa_ok(w, gb_m) ? "beyond the A/A noise" : "inside the noise"
				# The gate is against the A/A; the ratio'"'"'s own interval
				# may still hold 1.
				if (rows[q] != "anchor2/anchor" && gb_h >= 0 && lm <= gb_h && claim !~ /^one/)
					claim = claim ", its CI holds 1"
				printf "%-12s %-15s %-24s %3d %2d/%-2d %8.3f %8s  %s\n", w, rows[q],
				       gb_fmt(gb_m, gb_h), k, gb_pos, k, lm,
				       ((w in aah) && aah[w] >= 0 ? sprintf("%.3f", aah[w]) : "-"), claim
				if (plots != "") {
					printf "%d %s %g %g %g\n", ++pn[w], rows[q], exp(gb_m),
					       exp(gb_m - (gb_h < 0 ? 0 : gb_h)), exp(gb_m + (gb_h < 0 ? 0 : gb_h)) >(plots "/" w ".ratios")
				}
			}
		}
		print ""
		print "the co-runner'"'"'s rate beside each configuration over its rate beside the anchor,"
		print "paired by block (above 1: the co-runner got more done)"
		for (j = 1; j <= nw; j++) {
			w = wl[j]
			for (o = 1; o <= no; o++) {
				c = order[o]
				if (c == "anchor" || !pair(hog, w, c, "anchor")) continue
				printf "  %-12s %-8s %-24s %3d\n", w, c, gb_fmt(gb_m, gb_h),
				       pair(hog, w, c, "anchor")
			}
		}
		print ""
		print "per run, over the workload only: PLE exits and park hypercalls, and"
		print "what kvm-pvple did with them (acted: yields tried and parks)"
		print "(non-stock: acted or spin; to-holder: successful yields to the holder;"
		print " no-holder: stock because no record named the holder; reached: of the"
		print " successful yields, those whose target ran before the yielder'"'"'s next exit)"
		printf "%-12s %-8s %8s %7s %7s %8s %8s %8s %8s %8s %9s %8s %9s %9s %9s %8s\n", "workload", "config",
		       "PLE/run", "hc/run", "acted", "yields", "parks", "spin", "stock", "idle-rec",
		       "PVyield-ok", "halts", "non-stock", "to-holder", "no-holder", "reached"
		for (j = 1; j <= nw; j++) {
			w = wl[j]
			for (o = 1; o <= no; o++) {
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
				yo = tot[w, c, "reached"] + tot[w, c, "missed"]
				reached = yo ? sprintf("%.1f%%", 100 * tot[w, c, "reached"] / yo) : "-"
				printf "%-12s %-8s %8s %7s %7s %8.0f %8.0f %8.0f %8.0f %8.0f %9.0f %8.0f %9s %9.0f %9.0f %8s\n",
				       w, c, ple, hc, acted, tot[w, c, "yield"] / k, tot[w, c, "park"] / k,
				       tot[w, c, "spin"] / k, tot[w, c, "stock"] / k,
				       tot[w, c, "idle"] / k, tot[w, c, "dy_ok"] / k,
				       tot[w, c, "halts"] / k, nonstock, tot[w, c, "holder"] / k,
				       tot[w, c, "nohold"] / k, reached
				if (plots != "" && hasple[w, c] && ev)
					printf "%s %s %.4f %.4f %.4f %.4f\n", w, c,
					       tot[w, c, "yield"] / ev, tot[w, c, "park"] / ev,
					       tot[w, c, "spin"] / ev, tot[w, c, "stock"] / ev >(plots "/acted.dat")
			}
		}
		print ""
		print "goals (the product'"'"'s; Documentation/results.rst), on the paired ratios"
		goal("hackbench pvple/anchor >= 1.2:         ", "hackbench", "pvple", "anchor", 1.2, 1)
		goal("hackbench pvple/ple >= 3.0:            ", "hackbench", "pvple", "ple", 3.0, 1)
		goal("hackbench under/pvple <= 2.0:          ", "hackbench", "under", "pvple", 2.0, 0)
		for (j = 1; j <= nw; j++) {
			w = wl[j]
			goal(sprintf("%-11s underpv/under >= 0.99:  ", w), w, "underpv", "under", 0.99, 1)
		}
		for (j = 1; j <= nw; j++) {
			w = wl[j]
			if (!pair(speed, w, "series", "anchor")) continue
			# the series alone costs nothing we can see: inside the A/A noise
			printf "  %-11s series/anchor inside the A/A noise: %-22s  %s\n", w,
			       gb_fmt(gb_m, gb_h), ((w in aah) && aah[w] >= 0 ? (aa_ok(w, gb_m) ? "NOT met" : "met") : "-")
		}
	}

	if (nwin) {
		if (R) print ""
		if (bmode == "") bmode = "auto"
		if (amode == "") amode = "off"
		if (taparam == "") taparam = "mode"
		bm = "B (" bmode ")"; am = "A (" amode ")"
		if (tawl == "") tawl = "locktorture"
		taunit = "acquisitions/s"
		if (tawl == "dbench") taunit = "load-file lines/s per client"
		if (tawl == "hackbench") taunit = "loops/s"
		if (tierk) {
			printf "tier K: guest kernel %s (B) against %s (A) in one boot, the other guest stopped, ABBA windows;\n",
			       bmode, amode
			if (l2args != "")
				printf "both guests booted with %s\n", l2args
			if (tkfirst != "" && nplace <= 1)
				printf "guest %s started first\n", toupper(tkfirst)
			if (nplace > 1)
				printf "%d placements, the guests booted afresh for each (group p.g: placement p)\n", nplace
			printf "%s: rates in %s from the lines inside each window less its first %g s (clocks = L1 - %.3f / %.3f s%s)\n",
			       tawl, taunit, guard, hgoff["a"], hgoff["b"], (nplace > 1 ? ", the last placement'"'"'s" : "")
		} else {
			printf "tier A: kvm-pvple %s=%s (B) against %s=%s (A) in one boot, ABBA windows;\n",
			       taparam, bmode, taparam, amode
			printf "%s: rates in %s over each window less its first %g s (guest clock = L1 - %.3f s)\n",
			       tawl, taunit, guard, offset
		}
		if (pvparams != "")
			printf "kvm-pvple loaded with %s\n", pvparams
		if (schedf != "" || sbslice != "")
			printf "L1 scheduler:%s%s\n", (schedf != "" ? " features" schedf : ""),
			       (sbslice != "" ? sprintf("%s base slice %.2f ms", (schedf != "" ? ";" : ""), sbslice / 1e6) : "")
		if (nh)
			printf "co B/A: the co-runner'"'"'s iterations, the same pairing (its clock = L1 - %.3f s)\n",
			       hoffset
		printf "%-6s %12s %12s %12s %12s %9s %9s\n", "group", am, bm, bm, am, "B/A",
		       "co B/A"
		for (i = 1; i <= nwin; i++) {
			if (wgst[i] == "a")
				rate[i] = winrate_in(i, 0, npa, pua, pwa)
			else if (wgst[i] == "b")
				rate[i] = winrate_in(i, 0, npb, pub, pwb)
			else
				rate[i] = winrate(i, offset, np, pu, pw)
			hrate[i] = hogclock ? winrate(i, hoffset, nh, hu, hw) : -1
		}
		k = 0; kh = 0
		ng = 0
		for (i = 1; i + 3 <= nwin; i += 4) {
			# A placement with the kernels swapped (tk-place swap=1):
			# guest a runs B'"'"'s kernel, and its log ratio turns over.
			sw = pswap[wpl[i]] ? -1 : 1
			ma = sw < 0 ? bmode : amode; mb = sw < 0 ? amode : bmode
			if (wg[i] != wg[i + 3] || wm[i] != ma || wm[i + 1] != mb ||
			    wm[i + 2] != mb || wm[i + 3] != ma || wpl[i] != wpl[i + 3])
				continue
			if (tierk && (wgst[i] != "a" || wgst[i + 1] != "b" ||
				      wgst[i + 2] != "b" || wgst[i + 3] != "a"))
				continue
			gi[++ng] = i
			ok = pos4(rate, i)
			lr = "-"
			if (ok) {
				x[++k] = sw * abba(rate, i)
				xp[k] = wpl[i]
				lr = sprintf("%.3f", exp(x[k]))
			}
			ok = pos4(hrate, i)
			hr = "-"
			if (ok) {
				xh[++kh] = sw * abba(hrate, i)
				xhp[kh] = wpl[i]
				hr = sprintf("%.3f", exp(xh[kh]))
			}
			printf "%-6s %12.0f %12.0f %12.0f %12.0f %9s %9s\n",
			       (nplace > 1 ? wpl[i] "." wg[i] (sw < 0 ? "x" : "") : wg[i]), rate[i], rate[i + 1],
			       rate[i + 2], rate[i + 3], lr, hr
		}
		if (tierk)
			what = sprintf("tier K %s%s %s/%s", (tawl == "locktorture" ? "" : tawl " "),
				       (amode == bmode ? "A/A" : "B/A"), bmode, amode)
		else if (taparam == "mode")
			what = bmode == "off" ? "tier A A/A off/off" : "tier A pvple on/off"
		else
			what = sprintf("tier A %s %s %s/%s", (amode == bmode ? "A/A" : "B/A"),
				       taparam, bmode, amode)
		if (nplace > 1) {
			# Tier K over several placements: the interval is the
			# placements'"'"' (t on their means), which holds how the two
			# guests'"'"' places differ from one boot of them to the next;
			# the groups pooled leave that out.
			places(x, xp, k, pm, pn, pvar)
			places(xh, xhp, kh, hm, hn, hvar)
			print ""
			printf "%-6s %6s %5s %7s %9s %9s\n", "place", "first", "swap", "groups", "B/A", "co B/A"
			for (p = 1; p <= nplace; p++)
				printf "%-6d %6s %5s %7d %9s %9s\n", p, toupper(pfirst[p]),
				       (pswap[p] ? "yes" : "no"), pn[p],
				       (pn[p] ? sprintf("%.3f", exp(pm[p])) : "-"),
				       (hn[p] ? sprintf("%.3f", exp(hm[p])) : "-")
			np2 = 0
			for (p = 1; p <= nplace; p++)
				if (pn[p]) {
					pmm[++np2] = pm[p]; pf[np2] = pfirst[p]; pw2[np2] = pvar[p]
					ps[np2] = pswap[p] ? -1 : 1
				}
			kfit(pmm, ps, np2)
			printf "%s: %s, %d placements of %d groups (%d swapped), %d above 1, half-width %s\n", what,
			       gb_fmt(kf_m, kf_h), np2, k, kf_nsw, kf_pos,
			       halfw(kf_h)
			fair_k(kf_m, kf_h)
			if (kf_nsw && kf_nsw < np2)
				printf "  guest B'"'"'s place over guest A'"'"'s, whichever kernel it ran: %s\n",
				       gb_fmt(kf_r, kf_rh)
			# The placements'"'"' spread against what their groups'"'"'
			# own noise gives: the rest is the place effect.
			sb = kf_var; swv = 0
			for (j = 1; j <= np2; j++) swv += pw2[j] / np2
			if (kf_h < 0)
				print "  placements'"'"' spread: - (too few placements)"
			else
				printf "  placements'"'"' spread: SD %.3f in ln, %.3f of it expected from the groups, %.3f left to the places\n",
				       sqrt(sb), sqrt(swv), (sb > swv ? sqrt(sb - swv) : 0)
			fa = fb = 0; adv = 0
			for (j = 1; j <= np2; j++) {
				if (pf[j] == "a") fa++; else if (pf[j] == "b") fb++
				# guest b over guest a, then signed by who started first
				adv += (pf[j] == "b" ? 1 : -1) * ps[j] * pmm[j] / np2
			}
			if (fa && fb)
				printf "  the guest started first ahead by %.3f in ln (%d placements with A first, %d with B)\n",
				       adv, fa, fb
			gb_ci(x, k)
			if (k)
				printf "  groups pooled, which leaves the places out: %s, %d groups\n",
				       gb_fmt(gb_m, gb_h), k
			np2 = 0
			for (p = 1; p <= nplace; p++)
				if (hn[p]) { pmm[++np2] = hm[p]; ps[np2] = pswap[p] ? -1 : 1 }
			kfit(pmm, ps, np2)
			if (bmode == "under")
				print "tier K co-runner beside B over beside A: none (stopped in B'"'"'s windows)"
			else if (np2)
				printf "tier K co-runner beside B over beside A: %s, %d placements of %d groups, %d above 1\n",
				       gb_fmt(kf_m, kf_h), np2, kh, kf_pos
			else
				print "tier K co-runner beside B over beside A: not recorded"
		} else {
			gb_ci(x, k)
			if (k) {
				printf "%s: %s, %d groups, %d above 1, half-width %s\n", what,
				       gb_fmt(gb_m, gb_h), k, gb_pos,
				       halfw(gb_h)
				fair_k(gb_m, gb_h)
			} else
				print what ": no complete group"
			if (tierk && k)
				print "  one placement: the interval leaves out how the two guests'"'"' places differ from boot to boot (GB_TK_PLACES)"
			gb_ci(xh, kh)
			if (kh)
				printf "tier %s co-runner beside B over beside A: %s, %d groups, %d above 1\n",
				       (tierk ? "K" : "A"), gb_fmt(gb_m, gb_h), kh, gb_pos
			else if (nwin)
				printf "tier %s co-runner beside B over beside A: not recorded\n", (tierk ? "K" : "A")
		}
		cpu_summary()
		slice_summary()
		l1_summary()
		if (tierk) kvm_summary()
		# The QEMU of each guest in L1: its resident memory, and how much of
		# it transparent huge pages back (tk-mem).
		for (i = 1; i <= ntkw; i++) {
			split(tkw[i], wg2, SUBSEP)
			printf "tier K memory, %s, %s: %s\n", wg2[1],
			       (wg2[2] == "l1" ? "L1" : "guest " wg2[2]), tkm[wg2[1], wg2[2]]
		}
	}
}' "$in"

[ -n "$plots" ] && command -v gnuplot >/dev/null || exit 0
cd "$plots"
wls=$(ls *.dat 2>/dev/null | grep -v '^acted' | sed 's/\.dat$//' | tr '\n' ' ')
[ -n "$wls" ] || exit 0
nwl=$(echo $wls | wc -w)
{
	echo "set terminal png size $((420 * nwl)),420 font ',9'"
	echo "set output 'guests-time.png'"
	echo "set multiplot layout 1,$nwl"
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
	if ls *.ratios >/dev/null 2>&1; then
		echo "set output 'guests-ratio.png'"
		echo "set terminal png size $((420 * nwl)),420 font ',9'"
		echo "set multiplot layout 1,$nwl"
		echo "set style fill empty; set grid ytics; unset key; set yrange [*:*]"
		echo "set xtics rotate by -40"
		for w in $wls; do
			[ -f "$w.ratios" ] || continue
			echo "set title '$w: paired speed ratio, 95 % CI (above 1: faster)'"
			echo "plot '$w.ratios' using 1:3:4:5:xtic(2) with yerrorbars pt 7 lc rgb 'black', 1 with lines lc rgb 'red' dt 2"
		done
		echo "unset multiplot"
	fi
	if [ -f acted.dat ]; then
		echo "set output 'guests-acted.png'"
		echo "set terminal png size 640,420 font ',9'"
		echo "set title 'kvm-pvple: what became of the PLE exits (fraction)'"
		echo "set style data histograms; set style histogram rowstacked"
		echo "set key outside; set yrange [0:1]; set xtics norotate"
		echo "plot 'acted.dat' using 3:xtic(1) title 'directed yield', '' using 4 title 'park', '' using 5 title 'spin (target running)', '' using 6 title 'stock'"
	fi
} | gnuplot
