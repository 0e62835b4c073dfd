// SPDX-License-Identifier: GPL-2.0
/*
 * pvple_unlock_cost: what an uncontended spin_lock()/spin_unlock() pair
 * costs in a nested guest.  Not part of the product: a measurement of the
 * guest series' unlock path, loaded once per boot of the guest by
 * scripts/guest/l1-unlock-cost.sh ("make bench", PVPLE_BENCH_ONLY=unlock),
 * which boots the series' kernel beside a host that grants -- its
 * end-of-section test on (ABI 5) -- and one that does not.
 *
 * Each round times N spin_lock()/spin_unlock() pairs and N pairs of a
 * reference: this module's own out-of-line copies of _raw_spin_lock()
 * and _raw_spin_unlock() (kernel/locking/spinlock.c with the inline
 * __raw_spin_lock() and __raw_spin_unlock() of spinlock_api_smp.h, as a
 * kernel without lock debugging builds them), less the unlock's
 * arch_spin_section_end().  The two loops alternate in chunks, so that
 * both see the same moments of the emulator, whose speed changes
 * two-fold from one boot to the next; their ratio is the test's cost.
 * One line per round on the console:
 *	pvple_unlock_cost: round R pairs N ns T ref R
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

static unsigned int rounds = 31;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "rounds timed (31)");

static unsigned int pairs = 100000;
module_param(pairs, uint, 0444);
MODULE_PARM_DESC(pairs, "lock/unlock pairs per round (100000)");

#define CHUNKS	20

static DEFINE_SPINLOCK(cost_lock);
static DEFINE_RAW_SPINLOCK(ref_lock);

/* _raw_spin_lock() and _raw_spin_unlock() without the section's end. */
static noinline void ref_spin_lock(raw_spinlock_t *lock)
{
	preempt_disable();
	do_raw_spin_lock(lock);
}

static noinline void ref_spin_unlock(raw_spinlock_t *lock)
{
	do_raw_spin_unlock(lock);
	preempt_enable();
}

static int __init cost_init(void)
{
	unsigned int r, c, i, chunk = max(pairs / CHUNKS, 1U);
	u64 t0, t1, t2, spin, ref;

	for (r = 0; r < rounds; r++) {
		spin = 0;
		ref = 0;
		for (c = 0; c < CHUNKS; c++) {
			t0 = ktime_get_ns();
			for (i = 0; i < chunk; i++) {
				spin_lock(&cost_lock);
				spin_unlock(&cost_lock);
			}
			t1 = ktime_get_ns();
			for (i = 0; i < chunk; i++) {
				ref_spin_lock(&ref_lock);
				ref_spin_unlock(&ref_lock);
			}
			t2 = ktime_get_ns();
			spin += t1 - t0;
			ref += t2 - t1;
		}
		pr_info("round %u pairs %u ns %llu ref %llu\n", r,
			chunk * CHUNKS, spin, ref);
		cond_resched();
	}
	return 0;
}

static void __exit cost_exit(void)
{
}

module_init(cost_init);
module_exit(cost_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pvple: the cost of an uncontended spinlock pair in a guest");
