// SPDX-License-Identifier: GPL-2.0
#include <uapi/linux/kvm_pvple.h>

#include "policy.h"

enum pvple_hc_action pvple_hc_decode(unsigned long nr, int op_64_bit, int cpl)
{
	/* KVM truncates a 32-bit guest's registers; so must we, identically. */
	if (!op_64_bit)
		nr &= 0xffffffffUL;
	if (nr < KVM_HC_PVPLE_BASE || nr >= KVM_HC_PVPLE_END)
		return PVPLE_HC_NOT_OURS;
	/* Stock KVM refuses every hypercall from CPL > 0; do not be laxer. */
	if (cpl)
		return PVPLE_HC_EPERM;
	switch (nr) {
	case KVM_HC_PVPLE_PROBE:
		return PVPLE_HC_PROBE;
	default:
		return PVPLE_HC_UNKNOWN;
	}
}
