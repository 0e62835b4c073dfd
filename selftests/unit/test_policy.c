// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of pvple_hc_decode(): which guest hypercalls are pvple's, and
 * that everything else reaches KVM exactly as it would without the module.
 */
#include <stdio.h>

#include <linux/kvm_para.h>
#include <uapi/linux/kvm_pvple.h>

#include "kselftest.h"
#include "policy.h"

static const char * const names[] = {
	[PVPLE_HC_NOT_OURS] = "not-ours", [PVPLE_HC_EPERM] = "eperm",
	[PVPLE_HC_PROBE] = "probe", [PVPLE_HC_UNKNOWN] = "unknown",
};

static const struct {
	const char *what;
	unsigned long nr;
	int op_64_bit, cpl;
	enum pvple_hc_action want;
} cases[] = {
	{ "probe, 64-bit", KVM_HC_PVPLE_PROBE, 1, 0, PVPLE_HC_PROBE },
	{ "probe, 32-bit", KVM_HC_PVPLE_PROBE, 0, 0, PVPLE_HC_PROBE },
	{ "probe with bit 32 set, 64-bit: not ours",
	  KVM_HC_PVPLE_PROBE | (1UL << 32), 1, 0, PVPLE_HC_NOT_OURS },
	{ "probe with bit 32 set, 32-bit: truncated like KVM",
	  KVM_HC_PVPLE_PROBE | (1UL << 32), 0, 0, PVPLE_HC_PROBE },
	{ "probe from CPL 3", KVM_HC_PVPLE_PROBE, 1, 3, PVPLE_HC_EPERM },
	{ "last reserved number", KVM_HC_PVPLE_END - 1, 1, 0, PVPLE_HC_UNKNOWN },
	{ "one below the range", KVM_HC_PVPLE_BASE - 1, 1, 0, PVPLE_HC_NOT_OURS },
	{ "one past the range", KVM_HC_PVPLE_END, 1, 0, PVPLE_HC_NOT_OURS },
	{ "KVM_HC_SCHED_YIELD", KVM_HC_SCHED_YIELD, 1, 0, PVPLE_HC_NOT_OURS },
	{ "KVM_HC_KICK_CPU from CPL 3 is KVM's to refuse", KVM_HC_KICK_CPU, 1,
	  3, PVPLE_HC_NOT_OURS },
	{ "zero", 0, 1, 0, PVPLE_HC_NOT_OURS },
	{ "all ones, 64-bit", ~0UL, 1, 0, PVPLE_HC_NOT_OURS },
};

int main(void)
{
	unsigned long nr, bad;
	unsigned int i;

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(cases) + 2);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		enum pvple_hc_action got = pvple_hc_decode(cases[i].nr,
							   cases[i].op_64_bit,
							   cases[i].cpl);

		if (got != cases[i].want)
			ksft_print_msg("got %s, want %s\n", names[got],
				       names[cases[i].want]);
		ksft_test_result(got == cases[i].want, "hc_decode: %s\n",
				 cases[i].what);
	}

	/* The whole reserved range is ours; the 4096 numbers below are not. */
	for (bad = 0, nr = KVM_HC_PVPLE_BASE; nr < KVM_HC_PVPLE_END; nr++)
		bad += pvple_hc_decode(nr, 1, 0) == PVPLE_HC_NOT_OURS;
	ksft_test_result(!bad, "hc_decode: every reserved number is ours\n");
	for (bad = 0, nr = KVM_HC_PVPLE_BASE - 4096; nr < KVM_HC_PVPLE_BASE; nr++)
		bad += pvple_hc_decode(nr, 1, 0) != PVPLE_HC_NOT_OURS;
	ksft_test_result(!bad, "hc_decode: no number below the range is ours\n");

	ksft_finished();
}
