// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
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

bool pvple_fixture_loaded(void)
{
	return !access("/sys/module/pvple_pause_fixture", F_OK);
}

static long read_long(const char *path)
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
	return read_long("/sys/module/kvm_amd/parameters/pause_filter_count") > 0 ||
	       read_long("/sys/module/kvm_intel/parameters/ple_gap") > 0;
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
		F(ple_exits), F(hypercalls), F(hc_probe), F(hc_unknown),
		F(hc_eperm), F(sched_in), F(vcpu_load),
#undef F
	};
	char want[64], line[1024];
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

u64 pvple_thread_nivcsw(pid_t tid)
{
	char path[64], line[256];
	u64 v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
	TEST_ASSERT(f, "open %s", path);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "nonvoluntary_ctxt_switches: %lu", &v) == 1)
			break;
	fclose(f);
	return v;
}

static void kick_handler(int sig)
{
}

static void *vcpu_thread(void *arg)
{
	struct pvple_vcpu_thread *t = arg;
	struct kvm_regs regs;
	struct ucall uc;

	t->tid = syscall(SYS_gettid);
	if (t->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(t->cpu, &set);
		TEST_ASSERT(!sched_setaffinity(0, sizeof(set), &set),
			    "pin vCPU %u to CPU %d", t->vcpu->id, t->cpu);
	}
	for (;;) {
		/* Not vcpu_run(): it retries on EINTR, and EINTR is our kick. */
		if (__vcpu_run(t->vcpu) && errno == EINTR) {
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
			t->nivcsw = pvple_thread_nivcsw(t->tid);
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
