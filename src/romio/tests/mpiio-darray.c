/*
 * mpiio-darray - the FSDDS paper's distributed-array read: an N x N matrix
 * of 64-bit elements is written in row order by rank 0, then every rank
 * reads its block of a block-block distribution over a 2-D process grid
 * with MPI_File_set_view (an MPI darray file type) and MPI_File_read_all,
 * and checks each element against its (row, column).  Then the ranks write
 * their blocks back collectively into a second file, which rank 0 checks
 * whole.  N need not divide evenly: the edge blocks are smaller.
 *
 *   mpiexec -n 4 mpiio-darray pvfs:/pvfs/dir/file [N]
 */
#include <string.h>

#include "mpiio-check.h"

static int rank, nprocs;

static uint64_t
element(uint64_t seed, int64_t row, int64_t col, int64_t n)
{
	return seed * 0x100000001b3ULL + (uint64_t)(row * n + col);
}

/* Rank 0 writes the whole matrix in row order, one row per call. */
static void
write_matrix(const char *path, int64_t n, uint64_t seed)
{
	uint64_t *row = malloc(n * sizeof(*row));
	MPI_File fh;

	CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
	    MPI_INFO_NULL, &fh));
	for (int64_t i = 0; i < n; i++) {
		for (int64_t j = 0; j < n; j++)
			row[j] = element(seed, i, j, n);
		CHECK_MPI(MPI_File_write_at(fh, i * n * (MPI_Offset)sizeof(*row), row,
		    (int)n, MPI_UINT64_T, MPI_STATUS_IGNORE));
	}
	CHECK_MPI(MPI_File_close(&fh));
	free(row);
}

/* This rank's block: rows r0..r0+nr, columns c0..c0+nc (block-block). */
struct block { int64_t r0, nr, c0, nc; };

static struct block
my_block(const int dims[2], int64_t n)
{
	int coords[2] = { rank / dims[1], rank % dims[1] };
	int64_t br = (n + dims[0] - 1) / dims[0], bc = (n + dims[1] - 1) / dims[1];
	struct block b;

	b.r0 = coords[0] * br;
	b.nr = b.r0 >= n ? 0 : (b.r0 + br > n ? n - b.r0 : br);
	b.c0 = coords[1] * bc;
	b.nc = b.c0 >= n ? 0 : (b.c0 + bc > n ? n - b.c0 : bc);
	return b;
}

static MPI_Datatype
darray_type(const int dims[2], int64_t n)
{
	int gsizes[2] = { (int)n, (int)n }, psizes[2] = { dims[0], dims[1] };
	int distribs[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK };
	int dargs[2] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG };
	MPI_Datatype t;

	MPI_Type_create_darray(nprocs, rank, 2, gsizes, distribs, dargs, psizes,
	    MPI_ORDER_C, MPI_UINT64_T, &t);
	MPI_Type_commit(&t);
	return t;
}

static int
check_block(const uint64_t *buf, struct block b, int64_t n, uint64_t seed)
{
	for (int64_t i = 0; i < b.nr; i++)
		for (int64_t j = 0; j < b.nc; j++)
			if (buf[i * b.nc + j] != element(seed, b.r0 + i, b.c0 + j, n)) {
				fprintf(stderr, "rank %d: element (%lld,%lld) wrong\n", rank,
				    (long long)(b.r0 + i), (long long)(b.c0 + j));
				return 1;
			}
	return 0;
}

/* Read (or write) this rank's block through the darray view. */
static void
block_io(const char *path, MPI_Datatype ftype, uint64_t *buf, int count,
    int write)
{
	MPI_File fh;
	MPI_Status st;
	int got;

	CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path,
	    write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
	CHECK_MPI(MPI_File_set_view(fh, 0, MPI_UINT64_T, ftype, "native", MPI_INFO_NULL));
	if (write)
		CHECK_MPI(MPI_File_write_all(fh, buf, count, MPI_UINT64_T, &st));
	else
		CHECK_MPI(MPI_File_read_all(fh, buf, count, MPI_UINT64_T, &st));
	MPI_Get_count(&st, MPI_UINT64_T, &got);
	if (got != count) {
		fprintf(stderr, "rank %d: moved %d elements of %d\n", rank, got, count);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	CHECK_MPI(MPI_File_close(&fh));
}

/* Rank 0 reads the written-back matrix whole. */
static int
check_matrix(const char *path, int64_t n, uint64_t seed)
{
	struct block all = { 0, n, 0, n };
	uint64_t *buf = malloc(n * n * sizeof(*buf));
	MPI_File fh;
	int err;

	CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
	CHECK_MPI(MPI_File_read_at(fh, 0, buf, (int)(n * n), MPI_UINT64_T,
	    MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_File_close(&fh));
	err = check_block(buf, all, n, seed);
	free(buf);
	return err;
}

int
main(int argc, char **argv)
{
	int dims[2] = { 0, 0 }, err = 0;
	char copy[4096];
	int64_t n;
	uint64_t seed, *buf;
	struct block b;
	MPI_Datatype ftype;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	if (argc < 2) {
		if (rank == 0)
			fprintf(stderr, "usage: mpiio-darray FILE [N]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	n = argc > 2 ? atoll(argv[2]) : 1001;
	snprintf(copy, sizeof(copy), "%s.copy", argv[1]);
	seed = check_seed();
	MPI_Dims_create(nprocs, 2, dims);
	b = my_block(dims, n);
	ftype = darray_type(dims, n);
	buf = calloc(b.nr * b.nc + 1, sizeof(*buf));

	if (rank == 0)
		write_matrix(argv[1], n, seed);
	MPI_Barrier(MPI_COMM_WORLD);
	block_io(argv[1], ftype, buf, (int)(b.nr * b.nc), 0);
	err += check_block(buf, b, n, seed);
	block_io(copy, ftype, buf, (int)(b.nr * b.nc), 1);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		err += check_matrix(copy, n, seed);

	MPI_Type_free(&ftype);
	free(buf);
	err = check_verdict(err);
	MPI_Finalize();
	return err;
}
