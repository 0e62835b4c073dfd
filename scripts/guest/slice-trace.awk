# How slice-extension grants begin and end, from one ftrace recording in
# L1 (l1-guests-bench.sh, GB_TA_TRACE) with trace_clock mono: kvm-pvple's
# kvm_pvple_slice event, the grant timer's hrtimer_start and
# hrtimer_expire_entry (filtered on pvple_slice_expired), and sched_switch
# of QEMU's vCPU threads.  Each grant is followed in its vCPU thread (the
# task that took it) from the grant's hrtimer_start, which comes before
# the grant's own event (traced once preemption is on again; a short
# timer may even fire in between), until
#   end      the hook ended it (kvm_pvple_slice "end"), with or without
#            the grant's timer having fired first;
#   done     the guest ended it at the end of its section (ABI 4: the
#            hook's "done");
#   left     its thread was switched out before any "end" (the load hook
#            then ends it, with no event of its own);
#   open     the recording stopped first.
# Prints "# slice-trace KEY=VALUE ..." lines: counts, and for each way
# out the grants' mean and median length in microseconds, how far ahead
# the timer was armed, and when it fired, from the grant.

function ts_of(line) {
	if (match(line, / [0-9]+\.[0-9]+: /))
		return substr(line, RSTART + 1, RLENGTH - 3) * 1e6
	return -1
}

function pid_of(line,	s) {
	if (match(line, /-[0-9]+ +\[[0-9]+\]/)) {
		s = substr(line, RSTART + 1)
		sub(/ .*/, "", s)
		return s
	}
	return ""
}

function field(line, key) {
	if (!match(line, " " key "=[^ ]*"))
		return ""
	return substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
}

function note(class, us) {
	n[class]++
	sum[class] += us
	len[class, n[class]] = us
}

function median(class,	i, j, k, t, m) {
	m = n[class]
	if (!m)
		return 0
	for (i = 1; i <= m; i++)
		a[i] = len[class, i]
	for (i = 2; i <= m; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
	k = int((m + 1) / 2)
	return a[k]
}

function close_grant(tid, class, t) {
	note(class, t - gs[tid])
	if (fired[tid] != "")
		note(class "_fire", fired[tid] - gs[tid])
	delete gs[tid]
	delete fired[tid]
}

/ kvm_pvple_slice: / {
	t = ts_of($0)
	tid = pid_of($0)
	if (t < 0 || tid == "")
		next
	if ($0 ~ / grant$/) {
		grants++
		if (tid in arm) {
			arms++
			note("armed", arm[tid])
			delete arm[tid]
		} else {
			gs[tid] = t
			fired[tid] = ""
		}
	} else if ($0 ~ / done$/ && (tid in gs)) {
		close_grant(tid, "done", t)
	} else if ($0 ~ / end$/ && (tid in gs)) {
		close_grant(tid, fired[tid] != "" ? "end_fired" : "end_early", t)
	} else if ($0 ~ / end$/) {
		end_unseen++
	}
	next
}

/ hrtimer_start: / {
	tid = pid_of($0)
	h = field($0, "hrtimer")
	owner[h] = tid
	if (tid in gs)
		next
	t = ts_of($0)
	arm[tid] = field($0, "expires") / 1e3 - t
	gs[tid] = t
	fired[tid] = ""
	next
}

/ hrtimer_expire_entry: / {
	h = field($0, "hrtimer")
	tid = owner[h]
	if (tid == "" || !(tid in gs)) {
		fire_idle++
		next
	}
	fired[tid] = ts_of($0)
	if (pid_of($0) == tid)
		fire_own++
	else
		fire_other++
	next
}

/ sched_switch: / {
	tid = field($0, "prev_pid")
	if (tid in gs) {
		st = field($0, "prev_state")
		left_state[st]++
		close_grant(tid, "left", ts_of($0))
	}
	next
}

END {
	for (tid in gs)
		open++
	printf "# slice-trace grants=%d arms=%d ends_without_grant=%d open=%d", \
	       grants, arms, end_unseen, open
	printf " fired_task_current=%d fired_task_other=%d fired_no_grant=%d\n", \
	       fire_own, fire_other, fire_idle
	split("end_fired end_early done left armed", cls, " ")
	for (i = 1; i <= 5; i++) {
		c = cls[i]
		printf "# slice-trace %s n=%d mean_us=%.1f median_us=%.1f", c, n[c], \
		       n[c] ? sum[c] / n[c] : 0, median(c)
		if (n[c "_fire"])
			printf " fired_n=%d fired_mean_us=%.1f", n[c "_fire"], \
			       sum[c "_fire"] / n[c "_fire"]
		printf "\n"
	}
	s = ""
	for (st in left_state)
		s = s " " st "=" left_state[st]
	if (s != "")
		print "# slice-trace left_prev_state" s
}
