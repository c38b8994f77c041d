/*
 * xorshift.h - the unit suites' random numbers (xorshift64): cheap and
 * the same sequence for the same seed, so a failing run can be replayed.
 */
#ifndef PVFS_TEST_XORSHIFT_H
#define PVFS_TEST_XORSHIFT_H

#include <stdint.h>

/* The generator's state; never 0.  A suite may set it directly. */
extern uint64_t xorshift_state;

uint64_t xorshift(void);
/* Uniform enough in [lo, hi] (inclusive). */
uint64_t xorshift_range(uint64_t lo, uint64_t hi);
/* Seed from $PVFS_TEST_SEED when set, else dflt, and print the seed. */
void xorshift_seed(uint64_t dflt);

#endif /* PVFS_TEST_XORSHIFT_H */
