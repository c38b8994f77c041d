/*
 * mpiio-check.h - helpers shared by the project's MPI-IO test programs:
 * a seeded byte pattern (seed printed, so a failure can be replayed with
 * PVFS_TEST_SEED), error checks that abort the job with the call's message,
 * and the " No Errors" verdict line ROMIO's own tests print.
 */
#ifndef MPIIO_CHECK_H
#define MPIIO_CHECK_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The byte at file offset off of a file filled for seed: any offset can be
 * checked on its own, whoever wrote it. */
static inline unsigned char
check_byte(uint64_t seed, int64_t off)
{
	uint64_t z = seed + (uint64_t)off / 8 * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (unsigned char)(z >> (8 * ((uint64_t)off % 8)));
}

/* Same seed on every rank: rank 0's, from PVFS_TEST_SEED or the clock
 * (nanoseconds: every run gets another). */
static inline uint64_t
check_seed(void)
{
	const char *env = getenv("PVFS_TEST_SEED");
	struct timespec ts;
	unsigned long long seed;
	int rank;

	clock_gettime(CLOCK_REALTIME, &ts);
	seed = env ? strtoull(env, NULL, 0) :
	    (unsigned long long)ts.tv_sec * 1000000007ULL + (unsigned long long)ts.tv_nsec;

	MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		printf("seed %llu (PVFS_TEST_SEED to replay)\n", seed);
	return seed;
}

/* Abort the whole job when an MPI call fails, saying which and why. */
#define CHECK_MPI(call) check_mpi((call), #call, __FILE__, __LINE__)
static inline void
check_mpi(int err, const char *what, const char *file, int line)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len;

	if (err == MPI_SUCCESS)
		return;
	MPI_Error_string(err, msg, &len);
	fprintf(stderr, "%s:%d: %s: %s\n", file, line, what, msg);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Sum the ranks' error counts; rank 0 prints the verdict.  0 if none. */
static inline int
check_verdict(int errors)
{
	int total = 0, rank;

	MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		if (total == 0)
			printf(" No Errors\n");
		else
			printf(" Found %d errors\n", total);
	}
	return total != 0;
}

#endif /* MPIIO_CHECK_H */
