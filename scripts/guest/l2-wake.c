// SPDX-License-Identifier: GPL-2.0
/*
 * The wake-up loads of the L3 measurement (the nested guest has no perf):
 *
 *   l2-wake pipe PAIRS ROUNDS   as "perf bench sched pipe": each pair of
 *                               processes passes one byte back and forth
 *   l2-wake fan GROUPS LOOPS    as "hackbench -pipe": per group, 10
 *                               senders each write LOOPS 100-byte messages
 *                               to each of 10 receivers
 *   l2-wake cpuid               the cache and topology leaves
 *
 * A fourth argument HOGS adds that many CPU-bound processes for the
 * duration, so that wake-ups find their target vCPUs busy.
 *
 * Nothing is pinned: where wakees run is what the guest's view of its
 * caches decides.  Prints the messages passed and the elapsed time.
 */
#include <cpuid.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static void pass(int in, int out, long rounds, int first)
{
	char c = 0;
	long i;

	for (i = 0; i < rounds; i++) {
		if (!first && read(in, &c, 1) != 1)
			exit(1);
		if (write(out, &c, 1) != 1)
			exit(1);
		if (first && read(in, &c, 1) != 1)
			exit(1);
	}
	exit(0);
}

/* "l2-wake cpuid": the leaves a guest reads its caches and topology from. */
static int dump_cpuid(void)
{
	static const unsigned int leaves[][2] = {
		{ 4, 0 }, { 4, 1 }, { 4, 2 }, { 4, 3 }, { 4, 4 },
		{ 0xb, 0 }, { 0xb, 1 }, { 0x80000001, 0 }, { 0x80000006, 0 },
		{ 0x80000008, 0 }, { 0x8000001d, 0 }, { 0x8000001d, 1 },
		{ 0x8000001d, 2 }, { 0x8000001d, 3 }, { 0x8000001d, 4 },
		{ 0x8000001e, 0 },
	};
	unsigned int i, a, b, c, d;

	for (i = 0; i < ARRAY_SIZE(leaves); i++) {
		__cpuid_count(leaves[i][0], leaves[i][1], a, b, c, d);
		printf("cpuid %#x.%u: %08x %08x %08x %08x\n", leaves[i][0],
		       leaves[i][1], a, b, c, d);
	}
	return 0;
}

static long pipe_load(int pairs, long rounds)
{
	int i, ab[2], ba[2];

	for (i = 0; i < pairs; i++) {
		if (pipe(ab) || pipe(ba))
			exit(1);
		if (!fork())
			pass(ba[0], ab[1], rounds, 1);
		if (!fork())
			pass(ab[0], ba[1], rounds, 0);
		close(ab[0]);
		close(ab[1]);
		close(ba[0]);
		close(ba[1]);
	}
	return 2L * pairs * rounds;
}

#define FAN	10
#define MSG	100

static long fan_load(int groups, long loops)
{
	int g, r, k, fds[FAN][2];
	char buf[MSG] = { 0 };
	long l, got;

	for (g = 0; g < groups; g++) {
		for (r = 0; r < FAN; r++) {
			if (pipe(fds[r]))
				exit(1);
			if (fork())
				continue;
			for (got = 0; got < (long)FAN * loops * MSG; ) {
				ssize_t n = read(fds[r][0], buf, MSG);

				if (n <= 0)
					exit(1);
				got += n;
			}
			exit(0);
		}
		for (k = 0; k < FAN; k++) {
			if (fork())
				continue;
			for (l = 0; l < loops; l++)
				for (r = 0; r < FAN; r++)
					if (write(fds[r][1], buf, MSG) != MSG)
						exit(1);
			exit(0);
		}
		for (r = 0; r < FAN; r++) {
			close(fds[r][0]);
			close(fds[r][1]);
		}
	}
	return (long)groups * FAN * FAN * loops;
}

int main(int argc, char **argv)
{
	int hogs = argc == 5 ? atoi(argv[4]) : 0, i, st, bad = 0;
	pid_t hog[16];
	struct timespec t0, t1;
	long passes, loaders;

	if (argc > 1 && !strcmp(argv[1], "cpuid"))
		return dump_cpuid();
	if ((argc != 4 && argc != 5) || hogs < 0 || hogs > 16)
		return 2;
	for (i = 0; i < hogs; i++) {
		hog[i] = fork();
		if (!hog[i])
			for (;;)
				;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!strcmp(argv[1], "fan")) {
		passes = fan_load(atoi(argv[2]), atol(argv[3]));
		loaders = 2L * FAN * atoi(argv[2]);
	} else {
		passes = pipe_load(atoi(argv[2]), atol(argv[3]));
		loaders = 2L * atoi(argv[2]);
	}
	for (; loaders > 0 && wait(&st) > 0; loaders--)
		bad |= !WIFEXITED(st) || WEXITSTATUS(st);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (i = 0; i < hogs; i++)
		kill(hog[i], SIGKILL);
	while (wait(&st) > 0)
		;
	printf("passes=%ld secs=%.3f ok=%d\n", passes,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, !bad);
	return bad;
}
