/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure decisions of kvm-pvple: no locks, no KVM state, no side effects.
 * They build both into the module and into the userspace unit tests
 * (selftests/unit/), which is where they are tested: KUnit is not enabled
 * in the distro kernels pvple targets.
 */
#ifndef _KVM_PVPLE_POLICY_H
#define _KVM_PVPLE_POLICY_H

#include <linux/types.h>

enum pvple_hc_action {
	PVPLE_HC_NOT_OURS,	/* hand to KVM unchanged */
	PVPLE_HC_EPERM,		/* ours, but issued from guest user mode */
	PVPLE_HC_PROBE,
	PVPLE_HC_UNKNOWN,	/* in our range, no such call: -KVM_ENOSYS */
};

enum pvple_hc_action pvple_hc_decode(unsigned long nr, int op_64_bit, int cpl);

#endif /* _KVM_PVPLE_POLICY_H */
