// SPDX-License-Identifier: GPL-2.0
/*
 * pvple_pause_cycles [PAUSES]: how far apart, in TSC cycles, the PAUSEs of
 * a tight spin loop on this CPU are: "MEDIAN P99 P999" of the gaps between
 * consecutive PAUSEs, over PAUSES of them (default 200000).  The test
 * host's /init runs it before kvm_amd loads, to scale the pause filter's
 * threshold to the emulator (Documentation/testhost.rst, "The pause
 * filter"): on hardware a spin loop's iteration is tens of cycles and
 * kvm_amd's default threshold (128) a few of them; under TCG an iteration
 * takes hundreds of cycles, with a long tail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

static int cmp(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a;
	unsigned int y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char *argv[])
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;
	unsigned long long last, now;
	unsigned int *gap;
	unsigned long i;

	gap = calloc(n, sizeof(*gap));
	if (n < 1000 || !gap)
		return 1;
	last = __rdtsc();
	for (i = 0; i < n; i++) {
		_mm_pause();
		now = __rdtsc();
		gap[i] = now - last > ~0U ? ~0U : now - last;
		last = now;
	}
	qsort(gap, n, sizeof(*gap), cmp);
	printf("%u %u %u\n", gap[n / 2], gap[n - n / 100], gap[n - n / 1000]);
	free(gap);
	return 0;
}
