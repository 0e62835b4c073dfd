# The Linux-guest benchmark's statistics, an awk library for
# scripts/guest/guests-table.sh (POSIX awk: mawk, gawk; busybox awk on
# Debian has no log() or sqrt(), so none of this runs inside the test
# host).  Everything is on logarithms of speed ratios: a ratio and its
# inverse get the same interval, and the mean of the logs is the log of
# the geometric mean.

# gb_t975(DF): Student's t quantile 0.975 (two-sided 95 %) for DF degrees
# of freedom, from the usual table for 1..30 and the normal 1.96 beyond
# (a little narrow for 31-60: 2.04-2.00).
function gb_t975(df) {
	if (!(1 in gb_tt))
		split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 " \
		      "2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 " \
		      "2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", gb_tt, " ")
	if (df < 1)
		return 0
	return df <= 30 ? gb_tt[df] + 0 : 1.96
}

# gb_ci(X, N): the mean of X[1..N] in gb_m, the half-width of its 95 %
# confidence interval in gb_h (t on N - 1 degrees of freedom and the
# sample standard deviation; -1 when N < 2: no interval), how many X are
# above 0 in gb_pos.  Returns N.
function gb_ci(x, n,    i, s, d) {
	gb_m = 0; gb_h = -1; gb_pos = 0
	if (n < 1)
		return 0
	for (i = 1; i <= n; i++) {
		s += x[i]
		if (x[i] > 0)
			gb_pos++
	}
	gb_m = s / n
	if (n < 2)
		return n
	s = 0
	for (i = 1; i <= n; i++) {
		d = x[i] - gb_m
		s += d * d
	}
	gb_h = gb_t975(n - 1) * sqrt(s / (n - 1) / n)
	return n
}

# gb_var(X, N): the sample variance of X[1..N] (N - 1 in the
# denominator), 0 when N < 2.
function gb_var(x, n,    i, m, s, d) {
	if (n < 2)
		return 0
	for (i = 1; i <= n; i++)
		m += x[i] / n
	for (i = 1; i <= n; i++) {
		d = x[i] - m
		s += d * d
	}
	return s / (n - 1)
}

# gb_fmt(M, H): "G [LO, HI]" from a mean and half-width of logs.
function gb_fmt(m, h) {
	if (h < 0)
		return sprintf("%.3f [-]", exp(m))
	return sprintf("%.3f [%.3f, %.3f]", exp(m), exp(m - h), exp(m + h))
}

# gb_med(ARR, N): the median of ARR[1..N] (ARR is left as it was).
function gb_med(arr, n,    i, j, t, a) {
	for (i = 1; i <= n; i++)
		a[i] = arr[i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
