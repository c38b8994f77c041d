/* xorshift.c - the unit suites' random numbers (see xorshift.h). */
#include <stdio.h>
#include <stdlib.h>

#include "xorshift.h"

uint64_t xorshift_state = 0x9e3779b97f4a7c15ULL;

uint64_t
xorshift(void)
{
	xorshift_state ^= xorshift_state << 13;
	xorshift_state ^= xorshift_state >> 7;
	xorshift_state ^= xorshift_state << 17;
	return xorshift_state;
}

uint64_t
xorshift_range(uint64_t lo, uint64_t hi)
{
	return lo + xorshift() % (hi - lo + 1);
}

void
xorshift_seed(uint64_t dflt)
{
	const char *seed = getenv("PVFS_TEST_SEED");

	xorshift_state = seed ? strtoull(seed, NULL, 0) : dflt;
	printf("# seed 0x%llx (set PVFS_TEST_SEED to repeat)\n",
	    (unsigned long long)xorshift_state);
}
