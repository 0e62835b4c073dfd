/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the pvple selftests: the module's counters for one VM,
 * what the host can do (PLE on or off), and vCPU threads with a deadline
 * that say where a stuck vCPU was before they fail.
 */
#ifndef SELFTEST_PVPLE_UTIL_H
#define SELFTEST_PVPLE_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "kvm_util.h"

#define PVPLE_MAX_VCPUS	8

/* Field names as printed in /sys/kernel/debug/kvm-pvple/vms. */
struct pvple_counts {
	u64 ple_exits;
	u64 hypercalls;
	u64 hc_probe;
	u64 hc_register;
	u64 hc_unregister;
	u64 hc_park;
	u64 hc_features;
	u64 hc_unknown;
	u64 hc_eperm;
	u64 sched_in;
	u64 vcpu_load;
	u64 stock;
	u64 spin;
	u64 yield_tried;
	u64 yield_ok;
	u64 parks;
	u64 wake_sched_in;
	u64 wake_timeout;
	u64 wake_event;
	u64 wake_teardown;
	u64 park_ns;
	u64 rec_unregistered;
	u64 rec_fault;
	u64 rec_idle;
	u64 rec_torn;
	u64 rec_bad;
	u64 rec_target_range;
	u64 rec_target_self;
	u64 rec_target_absent;
	u64 rec_cycle;
	u64 park_crowded;
	u64 reg_ok;
	u64 reg_replaced;
	u64 reg_bad_version;
	u64 reg_unaligned;
	u64 reg_bad_gpa;
	u64 reg_bad_fields;
	u64 reg_nomem;
	u64 unreg_unknown;
	u64 l3_added;
	u64 l3_reshared;
	u64 l3_kept;
	u64 l3_off;
	u64 l3_no_vendor;
	u64 l3_no_slot;
	u64 l3_foreign;
	u64 l3_unmatched;
	u64 hc_throttled;
	u64 unreg_reset;
	u64 rec_no_holder;
	u64 rec_outside;
	u64 chain_hops;
	u64 chain_no_holder;
	u64 chain_deep;
	u64 chain_stale;
	u64 chain_cross;
	u64 chain_cycle;
	u64 chain_absent;
	u64 yield_holder;
	u64 spin_limit;
	u64 chain_head;
	u64 yield_beyond;
	u64 yield_reached;
	u64 yield_missed;
	u64 slice_requests;
	u64 slice_in_cs;
	u64 slice_granted;
	u64 slice_expired;
	u64 slice_cut;
	u64 slice_left;
	u64 slice_still_in_cs;
	u64 slice_waiting;
	u64 slice_fault;
	u64 slice_desched_cs;
	u64 slice_steps;
	u64 slice_done;
	u64 slice_done_idle;
	u64 slice_ns;
	u64 slice_given_back;
	u64 slice_refused_model;
	u64 slice_refused_rt_task;
	u64 slice_refused_nested;
	u64 slice_refused_timer;
	u64 slice_refused_regrant;
	u64 held_spin;
};

/* Module parameters: set (failing the test on error) and read back. */
void pvple_param_set(const char *name, const char *val);
/*
 * Switches the host's preemption model (PREEMPT_DYNAMIC's debugfs file),
 * saving the one it found first; false if it cannot.
 */
bool pvple_preempt_set(const char *mode);
/*
 * Puts back what a test may change on the host: the module's time_scale
 * and slice_step_us, the preemption model pvple_preempt_set() found, CPU 1
 * online.  For a fixture's teardown: it never fails the test.
 */
void pvple_host_restore(void);
void pvple_param_get(const char *name, char *buf, size_t len);

/*
 * The module's tracepoints, read back from tracefs.  Tests that use them
 * must run alone on the host: the events are not filtered by VM.
 */
struct pvple_event {
	enum { PVPLE_EV_YIELD, PVPLE_EV_WAKE, PVPLE_EV_DECIDE } type;
	int vcpu, target;
	int ret;		/* yield: kvm_vcpu_yield_to()'s result */
	char why[16];		/* wake: sched_in, timeout, event, teardown */
	u64 parked_ns;
	/* decide: the record, the chain's length and end, the action */
	char rec[16], end[16], end_state[16], action[16];
	int len, end_id, at;
};

void pvple_trace_begin(void);
/* The same, with kvm_pvple_decide: one event per PLE exit or park call. */
void pvple_trace_begin_decide(void);
/* Stops tracing; returns the number of events stored in @ev. */
int pvple_trace_end(struct pvple_event *ev, int max);

/*
 * Lost wake-ups told apart from a stalled host.  A park ended by its bound
 * was a lost wake-up only if the vCPU it waited behind ran meanwhile.
 * pvple_trace_runs_begin() traces the module's wake-ups and every switch
 * into the threads of vCPUs 0 to @n - 1, @tid[i] being vCPU i's, on the
 * trace clock "mono", the clock of a park's start_ns.
 *
 * pvple_trace_runs_stop() marks the moment the test tells its vCPUs to
 * finish: a vCPU that has left KVM_RUN is parked behind until it is
 * loaded again, by its next KVM_RUN or a vCPU ioctl (policy.c), and at
 * the end neither comes, while its thread is still switched in to exit.
 * Parks that begin after the mark are not judged.
 *
 * pvple_trace_runs_end() stops, puts the clock back to "local", and
 * returns how many parks the trace does not clear: ones that ended by
 * the bound @bound_ns although the target ran, or that began before
 * tracing did; with @late_ns, also ones that ended otherwise but lasted
 * the bound, the target having run more than @late_ns before it (a
 * wake-up lost, and the target's run seen only once the timer fired, as
 * park.c does).  @timeouts and @longest_ns get the number of timeouts and
 * the longest park among them.
 */
void pvple_trace_runs_begin(const pid_t *tid, int n);
void pvple_trace_runs_stop(void);
int pvple_trace_runs_end(const pid_t *tid, int n, u64 bound_ns, u64 late_ns,
			 int *timeouts, u64 *longest_ns);

bool pvple_module_loaded(void);
/* Unload kvm-pvple, or load @ko with @params; nothing if already so. */
void pvple_module_set(const char *ko, bool on, const char *params);
/* True when the pause-filter test fixture made every PAUSE exit. */
bool pvple_fixture_loaded(void);
/* True when the host intercepts PAUSE at all (PLE / pause filter on). */
bool pvple_ple_enabled(void);
/* The number in a sysfs file (a module parameter), or -1. */
long pvple_read_long(const char *path);
/*
 * Any tracepoint, "SYSTEM/EVENT": on (clearing the buffer first) or off;
 * pvple_trace_open() opens the buffer for reading (fclose when done).
 */
/*
 * pvple_trace_function() traces calls of one kernel function with ftrace's
 * function tracer (@on), or stops; pvple_trace_count() counts the lines of
 * the trace buffer that name @needle.
 */
void pvple_trace_function(const char *fn, bool on);
int pvple_trace_count(const char *needle);
void pvple_trace_event(const char *event, bool on);
FILE *pvple_trace_open(void);

/*
 * Per-VM mode through debugfs "mode": @mode for @vm (or for the VM named
 * @name when @vm is NULL); 0 or -errno.  pvple_vm_mode_is() reads it back.
 */
int pvple_vm_set_mode(struct kvm_vm *vm, const char *name, const char *mode);
bool pvple_vm_mode_is(struct kvm_vm *vm, const char *mode);

/* Reads this VM's line; false when the module does not track the VM. */
bool pvple_vm_counts(struct kvm_vm *vm, struct pvple_counts *c);

/*
 * Each vCPU runs in its own thread until the guest reports UCALL_DONE
 * (UCALL_SYNC is ignored).  pvple_wait_vcpus() fails the test if any vCPU
 * is not done within @timeout_s; before failing it prints the kernel stacks
 * of the test's threads and each stuck vCPU's registers, so that a report
 * says which case was hit (guest loop, host sleep, emulator).
 */
struct pvple_vcpu_thread {
	struct kvm_vcpu *vcpu;
	pthread_t thread;
	int cpu;		/* pin to this host CPU, or -1 */
	int done;
	pid_t tid;
	/*
	 * Involuntary switches of the thread while in KVM_RUN, give or take
	 * the entry and exit of each of its @runs KVM_RUN calls.
	 */
	u64 nivcsw;
	u64 runs;
	u64 cpu_ns;	/* CPU time of the thread, read when done */
};

void pvple_start_vcpus(struct pvple_vcpu_thread *t, int n);
void pvple_wait_vcpus(struct pvple_vcpu_thread *t, int n, int timeout_s);

static inline void pvple_run_vcpus(struct pvple_vcpu_thread *t, int n,
				   int timeout_s)
{
	pvple_start_vcpus(t, n);
	pvple_wait_vcpus(t, n, timeout_s);
}

/* Involuntary context switches of the calling thread so far. */
u64 pvple_thread_nivcsw(void);

/*
 * @clock's time in ns: CLOCK_MONOTONIC, or a thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID, pthread_getcpuclockid()).
 */
u64 pvple_clock_ns(clockid_t clock);

#endif
