// SPDX-License-Identifier: GPL-2.0
/*
 * The hook layer: the only part of kvm-pvple that knows which KVM functions
 * exist in this kernel and what their signatures are.  Everything else sees
 * plain calls (pvple_on_spin(), pvple_hypercall(), pvple_vcpu_loaded(), ...).
 *
 * pvple must run on a stock distro kernel, so it cannot add notifiers to KVM.
 * It uses ftrace, the mechanism livepatch is built on:
 *
 *  - "redirect" hooks replace an exported KVM function.  The ftrace callback
 *    points the saved instruction pointer at our replacement, which may call
 *    the original; that call comes from this module and is let through.
 *  - "observe" hooks run a short, non-sleeping callback on function entry.
 *
 * Redirected code can sleep (a directed yield schedules), so it is bracketed
 * by pvple_srcu; module exit waits for it before the text goes away.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/entry-kvm.h>
#include <linux/ftrace.h>
#include <linux/module.h>

#include "pvple.h"

DEFINE_STATIC_SRCU(pvple_srcu);

struct pvple_hook {
	const char *name;
	void *redirect;			/* replacement, or NULL */
	/* redirect only the calls this says are ours (NULL: all) */
	bool (*want)(struct ftrace_regs *fregs);
	void (*observe)(struct ftrace_regs *fregs); /* entry callback */
	const char *lost;		/* optional: what works not without it */
	struct ftrace_ops ops;
	bool registered;
};

/*
 * void kvm_vcpu_on_spin(struct kvm_vcpu *me, bool yield_to_kernel_mode)
 *
 * Every PLE exit, and the Hyper-V and Xen yield hypercalls KVM hands to
 * the same function.  Only those that may need pvple are redirected: a call
 * whose outcome is stock is decided and counted from the ftrace callback
 * (pvple_spin_wanted()) and goes on in KVM untouched.
 */
static bool pvple_spin_want(struct ftrace_regs *fregs)
{
	return pvple_spin_wanted((void *)ftrace_regs_get_argument(fregs, 0));
}

static void pvple_spin_redirect(struct kvm_vcpu *me, bool yield_to_kernel_mode)
{
	int idx = srcu_read_lock(&pvple_srcu);

	pvple_on_spin(me, yield_to_kernel_mode);
	srcu_read_unlock(&pvple_srcu, idx);
}

/*
 * unsigned long __kvm_emulate_hypercall(struct kvm_vcpu *vcpu,
 *	unsigned long nr, unsigned long a0, unsigned long a1,
 *	unsigned long a2, unsigned long a3, int op_64_bit, int cpl)
 *
 * Every KVM hypercall passes here (KVM_HC_KICK_CPU on every pvqspinlock
 * kick): only pvple's numbers are redirected, from the ftrace callback,
 * so the others pay one compare and go on in KVM untouched.
 */
static bool pvple_hypercall_want(struct ftrace_regs *fregs)
{
	return pvple_hc_maybe_ours(ftrace_regs_get_argument(fregs, 1));
}

static unsigned long pvple_hypercall_redirect(struct kvm_vcpu *vcpu,
					      unsigned long nr,
					      unsigned long a0, unsigned long a1,
					      unsigned long a2, unsigned long a3,
					      int op_64_bit, int cpl)
{
	int idx = srcu_read_lock(&pvple_srcu);
	unsigned long ret;

	ret = pvple_hypercall(vcpu, nr, a0, a1, a2, a3, op_64_bit, cpl);
	srcu_read_unlock(&pvple_srcu, idx);
	return ret;
}

/*
 * int xfer_to_guest_mode_handle_work(struct kvm_vcpu *vcpu)
 *
 * vcpu_run() calls it on the way back into the guest when work is pending
 * for the task (kernel/entry/kvm.c); with TIF_NEED_RESCHED it schedules.
 * Only the calls with that flag set are redirected: pvple_slice_resched()
 * may delay the reschedule (slice.c), then the original runs.
 */
static bool pvple_xfer_want(struct ftrace_regs *fregs)
{
	return test_thread_flag(TIF_NEED_RESCHED);
}

static int pvple_xfer_redirect(struct kvm_vcpu *vcpu)
{
	int idx = srcu_read_lock(&pvple_srcu);
	int ret;

	pvple_slice_resched(vcpu);
	ret = xfer_to_guest_mode_handle_work(vcpu);
	srcu_read_unlock(&pvple_srcu, idx);
	return ret;
}

/*
 * kvm_arch_vcpu_load() runs both when a vCPU task is scheduled in (KVM's
 * preempt notifier) and when an ioctl loads the vCPU; preemption is off in
 * both.  kvm_arch_post_init_vm() and kvm_arch_destroy_vm() bracket the life
 * of a VM, in process context.
 */
static void pvple_load_observe(struct ftrace_regs *fregs)
{
	pvple_vcpu_loaded((void *)ftrace_regs_get_argument(fregs, 0));
}

static void pvple_create_observe(struct ftrace_regs *fregs)
{
	pvple_vm_created((void *)ftrace_regs_get_argument(fregs, 0));
}

static void pvple_destroy_observe(struct ftrace_regs *fregs)
{
	pvple_vm_destroyed((void *)ftrace_regs_get_argument(fregs, 0));
}

/*
 * void kvm_vcpu_reset(struct kvm_vcpu *vcpu, bool init_event): INIT and
 * RESET.  KVM forgets the guest's steal-time and async-PF areas there
 * (kvm_vcpu_reset() in arch/x86/kvm/x86.c); a pvple area goes the same way.
 */
static void pvple_reset_observe(struct ftrace_regs *fregs)
{
	pvple_vcpu_reset((void *)ftrace_regs_get_argument(fregs, 0));
}

/*
 * static int kvm_set_cpuid(struct kvm_vcpu *vcpu,
 *			    struct kvm_cpuid_entry2 *e2, int nent)
 *
 * Both KVM_SET_CPUID and KVM_SET_CPUID2 pass through it with a table KVM
 * has just copied from userspace and now owns, before any check; editing
 * entries in place there is editing the VMM's input.  It is static, so
 * only its symbol name finds it, and a kernel that inlined it loses just
 * l3_cache= (the hook is optional).
 */
static void pvple_cpuid_observe(struct ftrace_regs *fregs)
{
	pvple_cpuid_set((void *)ftrace_regs_get_argument(fregs, 0),
			(void *)ftrace_regs_get_argument(fregs, 1),
			(int)ftrace_regs_get_argument(fregs, 2));
}

/*
 * The signatures the hooks rely on, checked against the headers of the
 * kernel the module is built for: the observers read their arguments by
 * position, and a redirect replaces the function, so a DKMS build for a
 * kernel whose KVM changed one fails here, naming it, rather than
 * misreading a register at run time.  kvm_set_cpuid() is static and
 * declared in no header; its hook is optional.
 */
#define PVPLE_SIGNATURE(fn, type)					\
	static_assert(__builtin_types_compatible_p(typeof(fn) *, type),	\
		      #fn "() is not 6.12's: kvm-pvple's hooks need porting")
PVPLE_SIGNATURE(kvm_arch_destroy_vm, void (*)(struct kvm *));
PVPLE_SIGNATURE(kvm_arch_post_init_vm, int (*)(struct kvm *));
PVPLE_SIGNATURE(kvm_vcpu_reset, void (*)(struct kvm_vcpu *, bool));
PVPLE_SIGNATURE(kvm_arch_vcpu_load, void (*)(struct kvm_vcpu *, int));
PVPLE_SIGNATURE(kvm_vcpu_on_spin, void (*)(struct kvm_vcpu *, bool));
PVPLE_SIGNATURE(__kvm_emulate_hypercall, typeof(pvple_hypercall_redirect) *);
PVPLE_SIGNATURE(xfer_to_guest_mode_handle_work, typeof(pvple_xfer_redirect) *);
static_assert(__same_type(&kvm_vcpu_on_spin, &pvple_spin_redirect));

/*
 * Registration order (unload goes backwards): the end of a VM is seen
 * before its start, so that no VM created while the module loads can be
 * tracked without its destruction being seen, and leave its state to a
 * later struct kvm at the same address.  A VM's state exists before any
 * event can count on it.
 */
static struct pvple_hook pvple_hooks[] = {
	{ .name = "kvm_arch_destroy_vm", .observe = pvple_destroy_observe },
	{ .name = "kvm_arch_post_init_vm", .observe = pvple_create_observe },
	{ .name = "kvm_vcpu_reset", .observe = pvple_reset_observe },
	{ .name = "kvm_arch_vcpu_load", .observe = pvple_load_observe },
	{ .name = "kvm_set_cpuid", .observe = pvple_cpuid_observe,
	  .lost = "l3_cache=" },
	{ .name = "__kvm_emulate_hypercall", .want = pvple_hypercall_want,
	  .redirect = pvple_hypercall_redirect },
	{ .name = "kvm_vcpu_on_spin", .want = pvple_spin_want,
	  .redirect = pvple_spin_redirect },
	{ .name = "xfer_to_guest_mode_handle_work", .want = pvple_xfer_want,
	  .redirect = pvple_xfer_redirect, .lost = "slice_ext_us=" },
};

static void notrace pvple_ftrace_redirect(unsigned long ip,
					  unsigned long parent_ip,
					  struct ftrace_ops *ops,
					  struct ftrace_regs *fregs)
{
	struct pvple_hook *hook = container_of(ops, struct pvple_hook, ops);
	unsigned long to = (unsigned long)hook->redirect;
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);

	if (bit < 0)
		return;
	/* Our replacement calling the original must reach the original. */
	if (!within_module(parent_ip, THIS_MODULE) &&
	    (!hook->want || hook->want(fregs)))
		ftrace_regs_set_instruction_pointer(fregs, to);
	ftrace_test_recursion_unlock(bit);
}

static void notrace pvple_ftrace_observe(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *ops,
					 struct ftrace_regs *fregs)
{
	struct pvple_hook *hook = container_of(ops, struct pvple_hook, ops);
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);

	if (bit < 0)
		return;
	hook->observe(fregs);
	ftrace_test_recursion_unlock(bit);
}

static int pvple_hook_register(struct pvple_hook *hook)
{
	int ret;

	/*
	 * No FTRACE_OPS_FL_RECURSION: with it, ftrace calls every callback
	 * through ftrace_ops_assist_func() (ftrace_ops_get_func(),
	 * kernel/trace/ftrace.c), one more call on every hooked call; without
	 * it the ops' own trampoline calls the callback (ftrace's list
	 * function does, where another ops traces the same function), which
	 * guards itself with ftrace_test_recursion_trylock(), as livepatch's
	 * klp_ftrace_handler() does.  The guard's bits are those the function
	 * tracer and kprobes share: a call it turns away is not hooked, and
	 * nothing counts that (it has not been seen).  Ten alternating boots
	 * of the lock bench (results.rst) found no decision or throughput
	 * that depends on the flag.
	 *
	 * FTRACE_OPS_FL_PERMANENT: "sysctl kernel.ftrace_enabled=0" is refused
	 * while the hooks are in (is_permanent_ops_registered() in
	 * ftrace_enable_sysctl(), kernel/trace/ftrace.c) rather than
	 * detaching them silently, which would leave VMs' state behind.
	 */
	hook->ops.flags = FTRACE_OPS_FL_PERMANENT;
	if (hook->redirect) {
		hook->ops.func = pvple_ftrace_redirect;
		hook->ops.flags |= FTRACE_OPS_FL_IPMODIFY;
#ifndef CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS
		hook->ops.flags |= FTRACE_OPS_FL_SAVE_REGS;
#endif
	} else {
		hook->ops.func = pvple_ftrace_observe;
	}

	ret = ftrace_set_filter(&hook->ops, (unsigned char *)hook->name,
				strlen(hook->name), 1);
	if (ret && hook->lost) {
		pr_info("no %s in this kernel (%d): %s has no effect\n",
			hook->name, ret, hook->lost);
		return 0;
	}
	if (ret) {
		pr_err("cannot trace %s (%d): is kvm loaded?\n", hook->name, ret);
		return ret;
	}
	ret = register_ftrace_function(&hook->ops);
	if (ret) {
		/* -EBUSY: another IPMODIFY user (e.g. a livepatch) owns it. */
		ftrace_free_filter(&hook->ops);
		if (hook->lost) {
			pr_info("cannot hook %s (%d): %s has no effect\n",
				hook->name, ret, hook->lost);
			return 0;
		}
		pr_err("cannot hook %s (%d)\n", hook->name, ret);
		return ret;
	}
	hook->registered = true;
	return 0;
}

static void pvple_hook_unregister(struct pvple_hook *hook)
{
	if (!hook->registered)
		return;
	unregister_ftrace_function(&hook->ops);
	ftrace_free_filter(&hook->ops);
	hook->registered = false;
}

/**
 * pvple_hooks_exit() - Remove every hook, and wait for its callers to leave.
 *
 * Ends the parks in progress, then unregisters the hooks in the reverse of
 * their registration order, skipping those not registered, so it also
 * undoes a pvple_hooks_init() that failed halfway.  On return no task is
 * in a replacement, nor on its way out of this module's text.
 *
 * Context: process context (module init or exit); sleeps.
 */
void pvple_hooks_exit(void)
{
	int i;

	/*
	 * End the parks in progress first: unregistering the hooks takes RCU
	 * grace periods, longer than a parked vCPU should wait.  Parks that
	 * start meanwhile end at once.
	 */
	pvple_park_shutdown();
	for (i = ARRAY_SIZE(pvple_hooks) - 1; i >= 0; i--)
		pvple_hook_unregister(&pvple_hooks[i]);

	/*
	 * No new calls reach our replacements now.  Wait for every one still
	 * inside (a yield may sleep too), then for any task preempted between
	 * srcu_read_unlock() and the return out of this module's text.
	 */
	synchronize_srcu(&pvple_srcu);
	synchronize_rcu_tasks();
}

/**
 * pvple_hooks_init() - Hook KVM, in pvple_hooks[] order.
 *
 * An optional hook that this kernel cannot trace is left out.  If any other
 * hook fails, those already in are removed again (pvple_hooks_exit()).
 *
 * Context: process context (module init); sleeps.
 *
 * Return: 0, or the negative errno of the hook that failed (-EBUSY: another
 * IPMODIFY user, e.g. a livepatch, owns its function).
 */
int pvple_hooks_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(pvple_hooks); i++) {
		ret = pvple_hook_register(&pvple_hooks[i]);
		if (ret) {
			pvple_hooks_exit();
			return ret;
		}
	}
	return 0;
}

/* Is the hook on @fn registered (an optional one may be missing)? */
static bool pvple_hooked(const char *fn)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(pvple_hooks); i++)
		if (!strcmp(pvple_hooks[i].name, fn))
			return pvple_hooks[i].registered;
	return false;
}

/**
 * pvple_slice_hooked() - Is the vCPU's return to the guest hooked?
 *
 * Its hook is optional, as kvm_set_cpuid()'s: without it no reschedule
 * request reaches the slice extension, and slice_ext_us= does nothing.
 *
 * Return: true if the hook on the return to the guest is registered.
 */
bool pvple_slice_hooked(void)
{
	return pvple_hooked("xfer_to_guest_mode_handle_work");
}

/**
 * pvple_cpuid_hooked() - Is kvm_set_cpuid() hooked?
 *
 * Is kvm_set_cpuid() hooked, i.e. can l3_cache= do anything?  Its hook is
 * optional: a kernel that inlined the function has no symbol to trace.
 *
 * Return: true if the kvm_set_cpuid() hook is registered.
 */
bool pvple_cpuid_hooked(void)
{
	return pvple_hooked("kvm_set_cpuid");
}
