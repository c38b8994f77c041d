/*
 * bench-mpiio - MPI-IO against native libpvfs, in the same processes and
 * the same run: each of the N ranks writes, then reads, its own contiguous
 * region of one shared file (the PVFS paper's concurrent test), once with
 * pvfs_pwrite/pvfs_pread and once with MPI_File_write_at/read_at, and once
 * collectively (write_at_all/read_at_all); a barrier starts and ends each
 * phase.  Three rounds, the median reported, as aggregate MB/s (10^6 B/s)
 * side by side with the MPI-IO overhead.  doc/benchmarks.md has figures.
 *
 *   mpiexec -n N bench-mpiio pvfs:/pvfs/file [BYTES_PER_RANK [REQUEST]]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <pvfs.h>

#define ROUNDS 3

enum { NATIVE, INDEP, COLL, NKINDS };
static const char *kind_name[NKINDS] = { "native", "MPI-IO", "MPI-IO coll" };

static int rank, nprocs;
static long long size, req;
static char *buf;

static void die(const char *what)
{
	fprintf(stderr, "bench-mpiio: rank %d: %s failed\n", rank, what);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

/* One phase through libpvfs directly. */
static void native_phase(const char *path, int write)
{
	int fd = pvfs_open(path, write ? O_RDWR | O_CREAT : O_RDONLY, 0644);
	long long off = rank * size;

	if (fd == -1)
		die("pvfs_open");
	for (long long o = 0; o < size; o += req) {
		size_t n = size - o < req ? size - o : req;
		ssize_t r = write ? pvfs_pwrite(fd, buf, n, off + o) :
		    pvfs_pread(fd, buf, n, off + o);
		if (r != (ssize_t)n)
			die(write ? "pvfs_pwrite" : "pvfs_pread");
	}
	pvfs_close(fd);
}

/* One phase through MPI-IO, independent or collective requests. */
static void mpiio_phase(const char *path, int write, int coll)
{
	MPI_File fh;
	MPI_Offset off = rank * size;
	int amode = write ? MPI_MODE_CREATE | MPI_MODE_RDWR : MPI_MODE_RDONLY, err;

	if (MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
		die("MPI_File_open");
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
	MPI_File_close(&fh);
}

/* Aggregate MB/s of one phase: all bytes over the slowest rank's span. */
static double timed(const char *native, const char *mpi, int kind, int write)
{
	double t0, t1;

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	if (kind == NATIVE)
		native_phase(native, write);
	else
		mpiio_phase(mpi, write, kind == COLL);
	MPI_Barrier(MPI_COMM_WORLD);
	t1 = MPI_Wtime();
	return (double)size * nprocs / (t1 - t0) / 1e6;
}

static double median3(const double v[ROUNDS])
{
	double a = v[0], b = v[1], c = v[2];

	if ((a <= b && b <= c) || (c <= b && b <= a))
		return b;
	if ((b <= a && a <= c) || (c <= a && a <= b))
		return a;
	return c;
}

int main(int argc, char **argv)
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

	/* Each round: all writes, then all reads, kinds in turn; both paths
	 * share the file, so both find the same distribution and sizes. */
	for (int r = 0; r < ROUNDS; r++)
		for (int w = 1; w >= 0; w--)
			for (int k = 0; k < NKINDS; k++)
				mbs[w][k][r] = timed(native, argv[1], k, w);
	if (rank == 0) {
		printf("%d ranks x %lld bytes, %lld-byte requests, median of %d rounds\n",
		    nprocs, size, req, ROUNDS);
		printf("%-6s", "");
		for (int k = 0; k < NKINDS; k++)
			printf(" %14s", kind_name[k]);
		printf(" %14s\n", "MPI-IO overhead");
		for (int w = 1; w >= 0; w--) {
			double nat = median3(mbs[w][NATIVE]), ind = median3(mbs[w][INDEP]);
			printf("%-6s", w ? "write" : "read");
			for (int k = 0; k < NKINDS; k++)
				printf(" %9.1f MB/s", median3(mbs[w][k]));
			printf(" %13.1f %%\n", (nat - ind) / nat * 100.0);
		}
	}
	if (rank == 0 && pvfs_unlink(native) == -1)
		die("pvfs_unlink");
	free(buf);
	MPI_Finalize();
	return 0;
}
