/*
 * bench-mpiio - MPI-IO against native libpvfs, in the same processes and
 * the same run: each of the N ranks writes, then reads, its own contiguous
 * region of one shared file (the PVFS paper's concurrent test), once with
 * pvfs_pwrite/pvfs_pread and once with MPI_File_write_at/read_at, and once
 * collectively (write_at_all/read_at_all); a barrier starts and ends each
 * phase.  Five rounds; the medians are reported as aggregate MB/s (10^6
 * B/s) side by side, with the median over rounds of the MPI-IO overhead.
 * doc/benchmarks.md has figures.
 *
 *   mpiexec -n N bench-mpiio pvfs:/pvfs/file [BYTES_PER_RANK [REQUEST]]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <pvfs.h>

#define ROUNDS 5

enum { NATIVE, INDEP, COLL, NKINDS };
static const char *kind_name[NKINDS] = { "native", "MPI-IO", "MPI-IO coll" };

static int rank, nprocs;
static long long size, req;
static char *buf;

static void
die(const char *what)
{
	fprintf(stderr, "bench-mpiio: rank %d: %s failed\n", rank, what);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

/* One phase through libpvfs directly. */
static void
native_phase(int fd, int write)
{
	long long off = rank * size;

	for (long long o = 0; o < size; o += req) {
		size_t n = size - o < req ? size - o : req;
		ssize_t r = write ? pvfs_pwrite(fd, buf, n, off + o) :
		    pvfs_pread(fd, buf, n, off + o);
		if (r != (ssize_t)n)
			die(write ? "pvfs_pwrite" : "pvfs_pread");
	}
}

/* One phase through MPI-IO, independent or collective requests. */
static void
mpiio_phase(MPI_File fh, int write, int coll)
{
	MPI_Offset off = rank * size;
	int err;

	for (long long o = 0; o < size; o += req) {
		int n = size - o < req ? (int)(size - o) : (int)req;
		if (write)
			err = coll ? MPI_File_write_at_all(fh, off + o, buf, n, MPI_BYTE,
			    MPI_STATUS_IGNORE) : MPI_File_write_at(fh, off + o, buf, n,
			    MPI_BYTE, MPI_STATUS_IGNORE);
		else
			err = coll ? MPI_File_read_at_all(fh, off + o, buf, n, MPI_BYTE,
			    MPI_STATUS_IGNORE) : MPI_File_read_at(fh, off + o, buf, n,
			    MPI_BYTE, MPI_STATUS_IGNORE);
		if (err != MPI_SUCCESS)
			die(write ? "MPI_File_write_at" : "MPI_File_read_at");
	}
}

/* Aggregate MB/s of one phase: all bytes over the slowest rank's span.
 * Opening and closing stay outside it, as in the paper's test: they are
 * collective for MPI-IO, which costs much more than the I/O itself on a
 * small, oversubscribed machine, and say nothing about bandwidth. */
static double
timed(const char *native, const char *mpi, int kind, int write)
{
	int fd = -1, amode = write ? MPI_MODE_CREATE | MPI_MODE_RDWR : MPI_MODE_RDONLY;
	MPI_File fh;
	double t0, t1;

	/* every write phase starts from no file: extending costs more than
	 * overwriting, and each kind must pay the same */
	if (write && rank == 0 && pvfs_unlink(native) == -1 && errno != ENOENT)
		die("pvfs_unlink");
	MPI_Barrier(MPI_COMM_WORLD);
	if (kind == NATIVE && (fd = pvfs_open(native, write ? O_RDWR | O_CREAT : O_RDONLY,
	    0644)) == -1)
		die("pvfs_open");
	if (kind != NATIVE && MPI_File_open(MPI_COMM_WORLD, mpi, amode, MPI_INFO_NULL,
	    &fh) != MPI_SUCCESS)
		die("MPI_File_open");
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	if (kind == NATIVE)
		native_phase(fd, write);
	else
		mpiio_phase(fh, write, kind == COLL);
	MPI_Barrier(MPI_COMM_WORLD);
	t1 = MPI_Wtime();
	if (kind == NATIVE)
		pvfs_close(fd);
	else
		MPI_File_close(&fh);
	return (double)size * nprocs / (t1 - t0) / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(const double v[ROUNDS])
{
	double s[ROUNDS];

	memcpy(s, v, sizeof(s));
	qsort(s, ROUNDS, sizeof(s[0]), cmp_double);
	return s[ROUNDS / 2];
}

int
main(int argc, char **argv)
{
	double mbs[2][NKINDS][ROUNDS];
	const char *native;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	if (argc < 2 || strncmp(argv[1], "pvfs:", 5) != 0) {
		if (rank == 0)
			fprintf(stderr, "usage: bench-mpiio pvfs:/PATH [BYTES_PER_RANK [REQUEST]]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	native = argv[1] + 5;
	size = argc > 2 ? atoll(argv[2]) : 64LL << 20;
	req = argc > 3 ? atoll(argv[3]) : 1LL << 20;
	if (size <= 0 || req <= 0 || req > (1LL << 30))
		die("argument check");
	buf = malloc(req);
	memset(buf, 'a' + rank % 26, req);

	/* Each round: all writes, then all reads, kinds in turn, in reverse
	 * order every other round (what runs first may find colder caches);
	 * both paths use one file, so they see the same distribution. */
	for (int r = 0; r < ROUNDS; r++)
		for (int w = 1; w >= 0; w--)
			for (int i = 0; i < NKINDS; i++) {
				int k = r % 2 ? NKINDS - 1 - i : i;
				mbs[w][k][r] = timed(native, argv[1], k, w);
			}
	if (rank == 0) {
		printf("%d ranks x %lld bytes, %lld-byte requests, median of %d rounds\n",
		    nprocs, size, req, ROUNDS);
		printf("%-6s", "");
		for (int k = 0; k < NKINDS; k++)
			printf(" %14s", kind_name[k]);
		printf(" %14s\n", "MPI-IO overhead");
		for (int w = 1; w >= 0; w--) {
			/* overhead per round, whose two runs are moments apart:
			 * steadier than the ratio of medians on a busy machine */
			double over[ROUNDS];
			for (int r = 0; r < ROUNDS; r++)
				over[r] = (mbs[w][NATIVE][r] - mbs[w][INDEP][r]) /
				    mbs[w][NATIVE][r] * 100.0;
			printf("%-6s", w ? "write" : "read");
			for (int k = 0; k < NKINDS; k++)
				printf(" %9.1f MB/s", median(mbs[w][k]));
			printf(" %13.1f %%\n", median(over));
		}
	}
	if (rank == 0 && pvfs_unlink(native) == -1)
		die("pvfs_unlink");
	free(buf);
	MPI_Finalize();
	return 0;
}
