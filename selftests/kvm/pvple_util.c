// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kvm_util.h"
#include "ucall_common.h"
#include "pvple_util.h"

bool pvple_module_loaded(void)
{
	return !access("/sys/module/kvm_pvple", F_OK);
}

void pvple_module_set(const char *ko, bool on, const char *params)
{
	int fd;

	if (pvple_module_loaded() == on)
		return;
	if (!on) {
		TEST_ASSERT(!syscall(__NR_delete_module, "kvm_pvple", O_NONBLOCK),
			    "rmmod kvm_pvple");
		return;
	}
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	TEST_ASSERT(fd >= 0 && !syscall(__NR_finit_module, fd, params, 0),
		    "insmod %s %s", ko, params);
	close(fd);
}

bool pvple_fixture_loaded(void)
{
	return !access("/sys/module/pvple_pause_fixture", F_OK);
}

long pvple_read_long(const char *path)
{
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

bool pvple_ple_enabled(void)
{
	/* svm_vm_init(): either at 0 leaves PAUSE to the guest. */
	return (pvple_read_long("/sys/module/kvm_amd/parameters/pause_filter_count") > 0 &&
		pvple_read_long("/sys/module/kvm_amd/parameters/pause_filter_thresh") > 0) ||
	       pvple_read_long("/sys/module/kvm_intel/parameters/ple_gap") > 0;
}

/* Fields of a line are "name=value", separated by blanks. */
#define DELIM " \t\n"

bool pvple_vm_counts(struct kvm_vm *vm, struct pvple_counts *c)
{
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
#define F(x) { #x, offsetof(struct pvple_counts, x) }
		F(ple_exits), F(hypercalls), F(hc_probe), F(hc_register),
		F(hc_unregister), F(hc_park), F(hc_features), F(hc_unknown),
		F(hc_eperm), F(hc_throttled), F(unreg_reset),
		F(sched_in), F(vcpu_load), F(stock), F(spin),
		F(yield_tried), F(yield_ok), F(parks), F(wake_sched_in),
		F(wake_timeout), F(wake_event), F(wake_teardown), F(park_ns),
		F(rec_unregistered), F(rec_fault), F(rec_idle), F(rec_torn),
		F(rec_bad), F(rec_target_range), F(rec_target_self), F(rec_target_absent),
		F(rec_cycle), F(park_crowded), F(reg_ok), F(reg_replaced), F(reg_bad_version),
		F(reg_unaligned), F(reg_bad_gpa), F(reg_nomem), F(unreg_unknown),
		F(l3_added), F(l3_reshared), F(l3_kept), F(l3_off),
		F(l3_no_vendor), F(l3_no_slot), F(l3_foreign), F(l3_unmatched),
		F(rec_no_holder), F(chain_hops), F(chain_no_holder),
		F(chain_deep), F(chain_stale), F(chain_cross), F(chain_cycle),
		F(chain_absent), F(yield_holder), F(spin_limit), F(chain_head),
		F(yield_beyond), F(yield_reached), F(yield_missed),
		F(rec_outside), F(reg_bad_fields),
		F(slice_requests), F(slice_in_cs), F(slice_granted),
		F(slice_expired), F(slice_cut), F(slice_left),
		F(slice_still_in_cs), F(slice_waiting), F(slice_fault),
		F(slice_desched_cs), F(slice_steps), F(slice_done),
		F(slice_done_idle), F(slice_ns), F(slice_given_back),
		F(slice_refused_model), F(slice_refused_rt_task),
		F(slice_refused_nested), F(slice_refused_timer),
		F(slice_refused_regrant), F(held_spin),
#undef F
	};
	char want[64], line[4096];
	bool found = false;
	FILE *f;

	memset(c, 0, sizeof(*c));
	f = fopen("/sys/kernel/debug/kvm-pvple/vms", "r");
	if (!f)
		return false;
	snprintf(want, sizeof(want), "%d-%d ", getpid(), vm->fd);
	while (!found && fgets(line, sizeof(line), f)) {
		char *tok, *save;

		if (strncmp(line, want, strlen(want)))
			continue;
		found = true;
		for (tok = strtok_r(line + strlen(want), DELIM, &save); tok;
		     tok = strtok_r(NULL, DELIM, &save)) {
			char *eq = strchr(tok, '=');
			size_t i;

			if (!eq)
				continue;
			*eq = '\0';
			for (i = 0; i < ARRAY_SIZE(fields); i++)
				if (!strcmp(tok, fields[i].name))
					*(u64 *)((char *)c + fields[i].off) =
						strtoull(eq + 1, NULL, 0);
		}
	}
	fclose(f);
	return found;
}

/*
 * The calling thread's involuntary context switches.  One getrusage()
 * rather than reading /proc/self/task/N/status: the reads bracket every
 * KVM_RUN, and a preemption inside them counts as one outside KVM's
 * vcpu_load()..vcpu_put() window.  Opening, formatting and reading that
 * file took long enough under a KASAN and lockdep kernel (make
 * check-debug) to be preempted there, and sched_in_observed failed by
 * one switch.
 */
u64 pvple_thread_nivcsw(void)
{
	struct rusage ru;

	TEST_ASSERT(!getrusage(RUSAGE_THREAD, &ru), "getrusage(RUSAGE_THREAD)");
	return ru.ru_nivcsw;
}

u64 pvple_clock_ns(clockid_t clock)
{
	struct timespec ts;

	TEST_ASSERT(!clock_gettime(clock, &ts), "clock_gettime(%d)", clock);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void kick_handler(int sig)
{
}

static void *vcpu_thread(void *arg)
{
	struct pvple_vcpu_thread *t = arg;
	struct kvm_regs regs;
	struct ucall uc;

	__atomic_store_n(&t->tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	if (t->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(t->cpu, &set);
		TEST_ASSERT(!sched_setaffinity(0, sizeof(set), &set),
			    "pin vCPU %u to CPU %d", t->vcpu->id, t->cpu);
	}
	for (;;) {
		u64 before = pvple_thread_nivcsw();
		int r;

		/* Not vcpu_run(): it retries on EINTR, and EINTR is our kick. */
		r = __vcpu_run(t->vcpu);
		t->nivcsw += pvple_thread_nivcsw() - before;
		t->runs++;
		if (r && errno == EINTR) {
			vcpu_regs_get(t->vcpu, &regs);
			pr_info("# vCPU %u stuck: rip=0x%llx rax=0x%llx rcx=0x%llx%s",
				t->vcpu->id, regs.rip, regs.rax, regs.rcx, "\n");
			return NULL;
		}
		TEST_ASSERT_KVM_EXIT_REASON(t->vcpu, KVM_EXIT_IO);
		switch (get_ucall(t->vcpu, &uc)) {
		case UCALL_SYNC:
			break;
		case UCALL_DONE:
			t->cpu_ns = pvple_clock_ns(CLOCK_THREAD_CPUTIME_ID);
			__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
			return NULL;
		case UCALL_ABORT:
			REPORT_GUEST_ASSERT(uc);
		default:
			TEST_FAIL("vCPU %u: unexpected ucall %lu",
				  t->vcpu->id, uc.cmd);
		}
	}
}

static void dump_task_stacks(void)
{
	char path[300], line[256];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/task");

	while (dir && (d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stack",
			 d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		pr_info("# task %s kernel stack:\n", d->d_name);
		while (fgets(line, sizeof(line), f))
			pr_info("#   %s", line);
		fclose(f);
	}
	if (dir)
		closedir(dir);
}

void pvple_start_vcpus(struct pvple_vcpu_thread *t, int n)
{
	struct sigaction sa = { .sa_handler = kick_handler };
	int i;

	/* No SA_RESTART: the kick must make KVM_RUN return EINTR. */
	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < n; i++)
		pthread_create(&t[i].thread, NULL, vcpu_thread, &t[i]);
}

void pvple_wait_vcpus(struct pvple_vcpu_thread *t, int n, int timeout_s)
{
	struct timespec deadline;
	int i, stuck = 0;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += timeout_s;
	for (i = 0; i < n; i++) {
		if (!pthread_timedjoin_np(t[i].thread, NULL, &deadline))
			continue;
		if (!stuck++)
			dump_task_stacks();
		pthread_kill(t[i].thread, SIGUSR1);
		pthread_join(t[i].thread, NULL);
	}
	for (i = 0; i < n; i++)
		TEST_ASSERT(t[i].done,
			    "vCPU %u did not finish within %d s (see stacks above)",
			    t[i].vcpu->id, timeout_s);
}

static void write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	TEST_ASSERT(f, "open %s", path);
	TEST_ASSERT(fputs(val, f) >= 0 && !fclose(f), "write '%s' to %s",
		    val, path);
}

void pvple_param_set(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/kvm_pvple/parameters/%s",
		 name);
	write_file(path, val);
}

/* Writes @val to @path, and says whether it could; never fails the test. */
static bool write_quiet(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return false;
	ok = fputs(val, f) >= 0;
	return !fclose(f) && ok;
}

#define PREEMPT_FILE	"/sys/kernel/debug/sched/preempt"
#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"

/* The model pvple_preempt_set() found, for pvple_host_restore(). */
static char preempt_was[16];

bool pvple_preempt_set(const char *mode)
{
	char buf[128] = "", *lp, *rp;
	FILE *f;

	if (!preempt_was[0]) {
		f = fopen(PREEMPT_FILE, "r");
		if (!f)
			return false;
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
		lp = strchr(buf, '(');
		rp = lp ? strchr(lp, ')') : NULL;
		if (!rp || rp - lp - 1 >= (long)sizeof(preempt_was))
			return false;
		memcpy(preempt_was, lp + 1, rp - lp - 1);
	}
	return write_quiet(PREEMPT_FILE, mode);
}

void pvple_host_restore(void)
{
	char buf[8] = "";
	FILE *f;

	if (pvple_module_loaded()) {
		write_quiet("/sys/module/kvm_pvple/parameters/time_scale", "1");
		write_quiet("/sys/module/kvm_pvple/parameters/slice_step_us", "0");
	}
	if (preempt_was[0] && write_quiet(PREEMPT_FILE, preempt_was))
		preempt_was[0] = 0;
	f = fopen(CPU1_ONLINE, "r");
	if (f) {
		if (fgets(buf, sizeof(buf), f) && buf[0] == '0')
			write_quiet(CPU1_ONLINE, "1");
		fclose(f);
	}
}

void pvple_param_get(const char *name, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/kvm_pvple/parameters/%s",
		 name);
	f = fopen(path, "r");
	TEST_ASSERT(f && fgets(buf, len, f), "read %s", path);
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static const char *tracefs(void)
{
	return access("/sys/kernel/tracing/trace", F_OK) ?
	       "/sys/kernel/debug/tracing" : "/sys/kernel/tracing";
}

void pvple_trace_function(const char *fn, bool on)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/current_tracer", tracefs());
	write_file(path, "nop");
	snprintf(path, sizeof(path), "%s/set_ftrace_filter", tracefs());
	write_file(path, on ? fn : "");
	if (!on)
		return;
	snprintf(path, sizeof(path), "%s/trace", tracefs());
	write_file(path, "");
	snprintf(path, sizeof(path), "%s/current_tracer", tracefs());
	write_file(path, "function");
}

int pvple_trace_count(const char *needle)
{
	char path[160], line[512];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", tracefs());
	f = fopen(path, "r");
	TEST_ASSERT(f, "open %s", path);
	while (fgets(line, sizeof(line), f))
		n += line[0] != '#' && strstr(line, needle);
	fclose(f);
	return n;
}

void pvple_trace_event(const char *event, bool on)
{
	char path[160];

	if (on) {
		snprintf(path, sizeof(path), "%s/trace", tracefs());
		write_file(path, "");
	}
	snprintf(path, sizeof(path), "%s/events/%s/enable", tracefs(), event);
	write_file(path, on ? "1" : "0");
}

FILE *pvple_trace_open(void)
{
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", tracefs());
	f = fopen(path, "r");
	TEST_ASSERT(f, "open %s", path);
	return f;
}

static bool trace_decide;

static void trace_events(const char *on)
{
	static const char * const events[] = {
		"kvm_pvple_yield", "kvm_pvple_wake", "kvm_pvple_decide",
	};
	char path[160];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(events); i++) {
		/* One per PLE exit: only for the tests that ask. */
		if (i == 2 && !trace_decide && *on == '1')
			continue;
		snprintf(path, sizeof(path), "%s/events/kvm_pvple/%s/enable",
			 tracefs(), events[i]);
		write_file(path, on);
	}
}

void pvple_trace_begin(void)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/trace", tracefs());
	write_file(path, "");
	trace_events("1");
}

void pvple_trace_begin_decide(void)
{
	trace_decide = true;
	pvple_trace_begin();
	trace_decide = false;
}

#define WAKE_FMT "kvm_pvple_wake: kvm %*s vcpu %d target %d why %15s parked_ns %lu"
#define DECIDE_FMT "kvm_pvple_decide: kvm %*s vcpu %d %*s rec %15s target %d chain %d %15s at %d state %15s action %15s on %d"

int pvple_trace_end(struct pvple_event *ev, int max)
{
	char path[160], line[512];
	int n = 0;
	FILE *f;

	trace_events("0");
	snprintf(path, sizeof(path), "%s/trace", tracefs());
	f = fopen(path, "r");
	TEST_ASSERT(f, "open %s", path);
	while (n < max && fgets(line, sizeof(line), f)) {
		struct pvple_event *e = &ev[n];
		char *p;

		memset(e, 0, sizeof(*e));
		p = strstr(line, "kvm_pvple_yield: ");
		if (p && sscanf(p, "kvm_pvple_yield: kvm %*s vcpu %d target %d ret %d",
				&e->vcpu, &e->target, &e->ret) == 3) {
			e->type = PVPLE_EV_YIELD;
			n++;
			continue;
		}
		p = strstr(line, "kvm_pvple_wake: ");
		if (p && sscanf(p, WAKE_FMT, &e->vcpu, &e->target, e->why,
				&e->parked_ns) == 4) {
			e->type = PVPLE_EV_WAKE;
			n++;
			continue;
		}
		p = strstr(line, "kvm_pvple_decide: ");
		if (p && sscanf(p, DECIDE_FMT, &e->vcpu, e->rec, &e->target,
				&e->len, e->end, &e->end_id, e->end_state,
				e->action, &e->at) == 9) {
			e->type = PVPLE_EV_DECIDE;
			n++;
		}
	}
	fclose(f);
	return n;
}

/* The trace timestamp, in ns, of a line whose event name is at @ev. */
static u64 trace_line_ns(char *line, char *ev)
{
	char *ts;

	*ev = '\0';
	ts = strrchr(line, ' ');
	return ts ? (u64)(strtod(ts + 1, NULL) * 1e9) : 0;
}

void pvple_trace_runs_begin(const pid_t *tid, int n)
{
	char path[160], filter[256];
	int i, len = 0;

	for (i = 0; i < n; i++)
		len += snprintf(filter + len, sizeof(filter) - len, "%snext_pid == %d",
				i ? " || " : "", tid[i]);
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/filter",
		 tracefs());
	write_file(path, filter);
	pvple_trace_event("sched/sched_switch", true);
	/* ktime_get()'s clock: a park's start_ns is on it (pvple_trace.h). */
	snprintf(path, sizeof(path), "%s/trace_clock", tracefs());
	write_file(path, "mono");
	pvple_trace_begin();
	snprintf(path, sizeof(path), "%s/trace_marker", tracefs());
	write_file(path, "pvple-runs-begin");
}

void pvple_trace_runs_stop(void)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/trace_marker", tracefs());
	write_file(path, "pvple-runs-stop");
}

int pvple_trace_runs_end(const pid_t *tid, int n, u64 bound_ns, u64 late_ns,
			 int *timeouts, u64 *longest_ns)
{
	/*
	 * A switch-in is traced before KVM's load counts it (sched_switch,
	 * then finish_task_switch()'s notifiers), and the timer has 10 us
	 * of slack: a margin for both, on an emulator.
	 */
	const u64 tie_ns = 2 * 1000 * 1000ULL;
	int i, v, nruns = 0, cap = 0, bad = 0;
	struct { int vcpu; u64 ns; } *runs = NULL;
	char line[512], why[16], *p;
	u64 begin = 0, stop = ~0ULL, ns, margin;
	struct pvple_event ev;
	bool lost = false;
	FILE *f;

	trace_events("0");
	pvple_trace_event("sched/sched_switch", false);
	*timeouts = 0;
	*longest_ns = 0;
	f = pvple_trace_open();
	while (fgets(line, sizeof(line), f)) {
		unsigned long kept, written;

		/* Events lost to a full buffer: clear nothing. */
		p = strstr(line, "entries-in-buffer/entries-written: ");
		if (p && sscanf(p + 35, "%lu/%lu", &kept, &written) == 2 &&
		    kept != written)
			lost = true;
		p = strstr(line, " tracing_mark_write: pvple-runs-begin");
		if (p) {
			begin = trace_line_ns(line, p);
			continue;
		}
		p = strstr(line, " tracing_mark_write: pvple-runs-stop");
		if (p) {
			stop = trace_line_ns(line, p);
			continue;
		}
		p = strstr(line, " sched_switch: ");
		if (p && strstr(p, " next_pid=")) {
			pid_t next = atoi(strstr(p, " next_pid=") + 10);

			for (v = 0; v < n && tid[v] != next; v++)
				;
			if (v == n)
				continue;
			if (nruns == cap) {
				cap = cap ? 2 * cap : 1024;
				runs = realloc(runs, cap * sizeof(*runs));
				TEST_ASSERT(runs, "realloc");
			}
			runs[nruns].vcpu = v;
			runs[nruns++].ns = trace_line_ns(line, p);
			continue;
		}
		p = strstr(line, " kvm_pvple_wake: ");
		/*
		 * From when the park began, not from the event's own time:
		 * the event is written after the park, and its writer may be
		 * preempted before it, by the very vCPU it waited behind.
		 */
		if (!p || sscanf(p + 1, WAKE_FMT " start_ns %lu", &ev.vcpu,
				 &ev.target, why, &ev.parked_ns, &ns) != 5)
			continue;
		if (!strcmp(why, "timeout")) {
			++*timeouts;
			if (ev.parked_ns > *longest_ns)
				*longest_ns = ev.parked_ns;
			margin = tie_ns;
		} else if (late_ns && ev.parked_ns >= bound_ns) {
			margin = late_ns;
		} else {
			continue;
		}
		/* Its target may have left KVM_RUN for good. */
		if (ns > stop)
			continue;
		if (lost || !begin || ns < begin ||
		    ev.target < 0 || ev.target >= n) {
			bad++;
			continue;
		}
		for (i = 0; i < nruns; i++)
			if (runs[i].vcpu == ev.target && runs[i].ns > ns &&
			    runs[i].ns + margin < ns + bound_ns)
				break;
		bad += i < nruns;
	}
	fclose(f);
	free(runs);
	snprintf(line, sizeof(line), "%s/trace_clock", tracefs());
	write_file(line, "local");
	return bad;
}

int pvple_vm_set_mode(struct kvm_vm *vm, const char *name, const char *mode)
{
	char line[96], self[32];
	int fd, ret = 0;

	if (vm)
		snprintf(self, sizeof(self), "%d-%d", getpid(), vm->fd);
	snprintf(line, sizeof(line), "%s %s", vm ? self : name, mode);
	fd = open("/sys/kernel/debug/kvm-pvple/mode", O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, line, strlen(line)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

bool pvple_vm_mode_is(struct kvm_vm *vm, const char *mode)
{
	char want[96], line[4096];
	bool found = false;
	FILE *f = fopen("/sys/kernel/debug/kvm-pvple/vms", "r");

	if (!f)
		return false;
	snprintf(want, sizeof(want), "%d-%d mode=%s ", getpid(), vm->fd, mode);
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, want, strlen(want));
	fclose(f);
	return found;
}
