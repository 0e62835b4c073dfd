// SPDX-License-Identifier: GPL-2.0
/*
 * calib: how long the kinds of work a critical section is made of take on
 * this machine, for the emulator's factor (Documentation/testhost.rst,
 * "The emulator's factor").  One static binary, run on the machine under
 * the test host (L0), in the test host (L1) and in a nested guest (L2);
 * the ratio of their times is the emulator's slowdown, kind by kind.
 *
 *	calib [REPEATS]
 *
 * prints, per kind, REPEATS lines "calib KIND NS" (nanoseconds per
 * operation, each repeat timed over about 20 ms of its own):
 *   int      a dependent multiply-add (an ALU chain)
 *   ladd     a locked add to a private line (an atomic)
 *   pair     an uncontended lock and unlock (xchg, then a store)
 *   l2read   a dependent read in 256 KB (cache-resident data)
 *   rand8m   a dependent random read in 8 MB (the emulator's TLB misses)
 *   syscall  getppid(): a system call, no exit
 *   cpuid    CPUID: a VM exit to the hypervisor below where there is
 *            one (always intercepted by KVM), an emulated instruction
 *            in the emulator itself
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define LINE		64
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Where each run's result goes, so that no run is optimised away. */
static unsigned long sink;

static unsigned long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static unsigned long run_int(unsigned long n)
{
	unsigned long x = n;

	while (n--)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

/* Each on a line of its own (main()). */
static unsigned long *word;
static unsigned int *lock;

static unsigned long run_ladd(unsigned long n)
{
	while (n--)
		__atomic_fetch_add(word, 1, __ATOMIC_SEQ_CST);
	return *word;
}

static unsigned long run_pair(unsigned long n)
{
	while (n--) {
		while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE))
			;
		__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
	}
	return *lock;
}

/* A random cycle through @bytes of lines: each read depends on the last. */
static unsigned long *chain(size_t bytes)
{
	size_t i, j, n = bytes / LINE, w = LINE / sizeof(unsigned long);
	unsigned long *m = aligned_alloc(4096, bytes);
	size_t *order = malloc(n * sizeof(*order));
	size_t t;

	if (!m || !order)
		exit(1);
	for (i = 0; i < n; i++)
		order[i] = i;
	srand(1);
	for (i = n - 1; i > 0; i--) {
		j = rand() % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++)
		m[order[i] * w] = (unsigned long)&m[order[(i + 1) % n] * w];
	free(order);
	return m;
}

static unsigned long *small, *big;

static unsigned long chase(unsigned long *p, unsigned long n)
{
	while (n--)
		p = (unsigned long *)*p;
	return (unsigned long)p;
}

static unsigned long run_l2read(unsigned long n)
{
	return chase(small, n);
}

static unsigned long run_rand8m(unsigned long n)
{
	return chase(big, n);
}

static unsigned long run_syscall(unsigned long n)
{
	unsigned long s = 0;

	while (n--)
		s += syscall(SYS_getppid);
	return s;
}

static unsigned long run_cpuid(unsigned long n)
{
	unsigned int a, b, c, d;
	unsigned long s = 0;

	while (n--) {
		a = 0;
		c = 0;
		__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
		s += a + b;
	}
	return s;
}

static const struct {
	const char *name;
	unsigned long (*run)(unsigned long n);
} kinds[] = {
	{ "int", run_int }, { "ladd", run_ladd }, { "pair", run_pair },
	{ "l2read", run_l2read }, { "rand8m", run_rand8m },
	{ "syscall", run_syscall }, { "cpuid", run_cpuid },
};

int main(int argc, char **argv)
{
	int repeats = argc > 1 ? atoi(argv[1]) : 5;
	unsigned int k;
	unsigned long n, t;
	int r;

	word = aligned_alloc(LINE, LINE);
	lock = aligned_alloc(LINE, LINE);
	if (!word || !lock)
		return 1;
	*word = 0;
	*lock = 0;
	small = chain(256 << 10);
	big = chain(8 << 20);
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		/* Grow the count until one run takes 20 ms; that is a repeat. */
		for (n = 16; ; n *= 2) {
			t = now_ns();
			__atomic_store_n(&sink, kinds[k].run(n), __ATOMIC_RELAXED);
			t = now_ns() - t;
			if (t >= 20000000 || n >= 1ULL << 40)
				break;
		}
		for (r = 0; r < repeats; r++) {
			t = now_ns();
			__atomic_store_n(&sink, kinds[k].run(n), __ATOMIC_RELAXED);
			t = now_ns() - t;
			printf("calib %s %.3f\n", kinds[k].name, (double)t / n);
		}
		fflush(stdout);
	}
	return 0;
}
