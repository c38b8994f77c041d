/*
 * mpiio-rw - the PVFS paper's concurrent read/write test through MPI-IO,
 * then the same file through a noncontiguous view (two-phase collective
 * writes, list-I/O independent reads), the striping hints, resize,
 * atomic mode (accepted; there are no locks), a close that waits for the
 * slowest rank, and delete.  Every byte read is checked against the seeded
 * pattern of the file offset it came from.
 *
 *   mpiexec -n 4 mpiio-rw pvfs:/pvfs/dir/file [BYTES_PER_RANK]
 */
#include <string.h>
#include <unistd.h>

#include "mpiio-check.h"

#define BLOCK 65536             /* request size of the contiguous phase */
#define RECORD 1000             /* record of the interleaved view: crosses stripes */
#define SSIZE 16384             /* striping_unit asked for */
#define PCOUNT 3                /* striping_factor asked for */

static int rank, nprocs;
static uint64_t seed;

static void
fill(unsigned char *buf, int64_t off, int64_t len, uint64_t s)
{
	for (int64_t i = 0; i < len; i++)
		buf[i] = check_byte(s, off + i);
}

static int
compare(const unsigned char *buf, int64_t off, int64_t len, uint64_t s,
    const char *what)
{
	for (int64_t i = 0; i < len; i++)
		if (buf[i] != check_byte(s, off + i)) {
			fprintf(stderr, "rank %d: %s: byte at offset %lld is %u, expected %u\n",
			    rank, what, (long long)(off + i), buf[i], check_byte(s, off + i));
			return 1;
		}
	return 0;
}

static MPI_File
open_file(const char *path, int amode)
{
	MPI_Info info;
	MPI_File fh;
	char v[16];

	MPI_Info_create(&info);
	snprintf(v, sizeof(v), "%d", PCOUNT);
	MPI_Info_set(info, "striping_factor", v);
	snprintf(v, sizeof(v), "%d", SSIZE);
	MPI_Info_set(info, "striping_unit", v);
	CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, amode, info, &fh));
	MPI_Info_free(&info);
	return fh;
}

/* The paper's test: each rank writes its own region in BLOCK requests,
 * then reads its neighbour's. */
static int
concurrent(MPI_File fh, int64_t size)
{
	unsigned char *buf = malloc(size);
	int64_t mine = rank * size, next = (rank + 1) % nprocs * size;
	MPI_Offset fsize;
	int err = 0;

	fill(buf, mine, size, seed);
	for (int64_t o = 0; o < size; o += BLOCK) {
		int n = size - o < BLOCK ? (int)(size - o) : BLOCK;
		CHECK_MPI(MPI_File_write_at(fh, mine + o, buf + o, n, MPI_BYTE,
		    MPI_STATUS_IGNORE));
	}
	CHECK_MPI(MPI_File_sync(fh));
	MPI_Barrier(MPI_COMM_WORLD);
	memset(buf, 0, (size_t)size);
	for (int64_t o = 0; o < size; o += BLOCK) {
		int n = size - o < BLOCK ? (int)(size - o) : BLOCK;
		CHECK_MPI(MPI_File_read_at(fh, next + o, buf + o, n, MPI_BYTE,
		    MPI_STATUS_IGNORE));
	}
	err += compare(buf, next, size, seed, "concurrent read");
	CHECK_MPI(MPI_File_get_size(fh, &fsize));
	if (fsize != nprocs * size) {
		fprintf(stderr, "rank %d: size %lld, expected %lld\n", rank,
		    (long long)fsize, (long long)(nprocs * size));
		err++;
	}
	free(buf);
	return err;
}

/* A view of records rank, rank + nprocs, ... of the file. */
static void
record_view(MPI_File fh, int who)
{
	MPI_Datatype ftype, rec;

	MPI_Type_contiguous(RECORD, MPI_BYTE, &rec);
	MPI_Type_create_resized(rec, 0, (MPI_Aint)RECORD * nprocs, &ftype);
	MPI_Type_commit(&ftype);
	CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)who * RECORD, MPI_BYTE, ftype,
	    "native", MPI_INFO_NULL));
	MPI_Type_free(&ftype);
	MPI_Type_free(&rec);
}

/* Interleaved records: written collectively from a buffer with holes (a
 * noncontiguous memory type too), read back independently through the
 * neighbour's view, and the whole file checked on rank 0. */
static int
interleaved(MPI_File fh, int64_t size, uint64_t s)
{
	int nrec = (int)(size / RECORD), err = 0, next = (rank + 1) % nprocs;
	unsigned char *mem = calloc((size_t)nrec * RECORD * 2, 1), *buf = malloc(size);
	MPI_Datatype mtype;

	for (int r = 0; r < nrec; r++)
		fill(mem + (int64_t)r * 2 * RECORD, ((int64_t)r * nprocs + rank) * RECORD,
		    RECORD, s);
	MPI_Type_vector(nrec, RECORD, 2 * RECORD, MPI_BYTE, &mtype);
	MPI_Type_commit(&mtype);
	record_view(fh, rank);
	CHECK_MPI(MPI_File_write_all(fh, mem, 1, mtype, MPI_STATUS_IGNORE));
	MPI_Type_free(&mtype);
	CHECK_MPI(MPI_File_sync(fh));
	MPI_Barrier(MPI_COMM_WORLD);

	record_view(fh, next);
	CHECK_MPI(MPI_File_read(fh, buf, nrec * RECORD, MPI_BYTE, MPI_STATUS_IGNORE));
	for (int r = 0; r < nrec && !err; r++)
		err += compare(buf + (int64_t)r * RECORD, ((int64_t)r * nprocs + next) * RECORD,
		    RECORD, s, "interleaved read");
	CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
	if (rank == 0) {
		int64_t total = (int64_t)nrec * RECORD * nprocs;
		unsigned char *all = malloc(total);
		CHECK_MPI(MPI_File_read_at(fh, 0, all, (int)total, MPI_BYTE, MPI_STATUS_IGNORE));
		err += compare(all, 0, total, s, "whole file");
		free(all);
	}
	free(mem);
	free(buf);
	return err;
}

/* The striping hints were applied: a second open without hints reports
 * the file's real distribution under the same keys. */
static int
hints(const char *path)
{
	static const struct { const char *key; int want; } h[] = {
		{ "striping_factor", PCOUNT }, { "striping_unit", SSIZE } };
	char v[MPI_MAX_INFO_VAL + 1];
	MPI_Info info;
	int flag, err = 0;
	MPI_File fh;

	CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
	CHECK_MPI(MPI_File_get_info(fh, &info));
	for (size_t i = 0; i < sizeof(h) / sizeof(h[0]); i++) {
		MPI_Info_get(info, h[i].key, MPI_MAX_INFO_VAL, v, &flag);
		if (!flag || atoi(v) != h[i].want) {
			fprintf(stderr, "rank %d: hint %s is %s, expected %d\n", rank,
			    h[i].key, flag ? v : "(unset)", h[i].want);
			err++;
		}
	}
	MPI_Info_free(&info);
	CHECK_MPI(MPI_File_close(&fh));
	return err;
}

/* Ranks that disagree on striping_factor: the open still succeeds (ROMIO
 * ignores the hint check's error at open) and the file gets rank 0's
 * value, which every rank then reads back from the file itself. */
static int
hints_disagree(const char *path)
{
	char name[4096], v[MPI_MAX_INFO_VAL + 1];
	MPI_Info info;
	MPI_File fh;
	int flag, err = 0;

	snprintf(name, sizeof(name), "%s.hints", path);
	MPI_Info_create(&info);
	snprintf(v, sizeof(v), "%d", rank % 2 + 1);
	MPI_Info_set(info, "striping_factor", v);
	CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, info,
	    &fh));
	MPI_Info_free(&info);
	CHECK_MPI(MPI_File_close(&fh));
	CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
	CHECK_MPI(MPI_File_get_info(fh, &info));
	MPI_Info_get(info, "striping_factor", MPI_MAX_INFO_VAL, v, &flag);
	if (!flag || atoi(v) != 1) {
		fprintf(stderr, "rank %d: striping_factor %s, expected rank 0's 1\n", rank,
		    flag ? v : "(unset)");
		err++;
	}
	MPI_Info_free(&info);
	CHECK_MPI(MPI_File_close(&fh));
	if (rank == 0)
		CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
	return err;
}

/* In atomic mode: each rank writes a record collectively and reads back
 * its neighbour's independently. */
static int
atomic_io(MPI_File fh)
{
	unsigned char out[RECORD], in[RECORD];
	int next = (rank + 1) % nprocs;

	fill(out, (int64_t)rank * RECORD, RECORD, seed ^ 0xa70);
	CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)rank * RECORD, out, RECORD, MPI_BYTE,
	    MPI_STATUS_IGNORE));
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)next * RECORD, in, RECORD, MPI_BYTE,
	    MPI_STATUS_IGNORE));
	return compare(in, (int64_t)next * RECORD, RECORD, seed ^ 0xa70, "atomic-mode read");
}

/* MPI_File_close is a synchronizing point for the driver: PVFS frees a
 * file's data at unlink even while it is open, so rank 0 closing and
 * deleting at once must not pull the data from under a slower rank that
 * still reads before its close (ROMIO's noncontig test does this). */
static int
close_then_delete(const char *path)
{
	static unsigned char buf[BLOCK];
	char name[4096];
	MPI_File fh;
	int err = 0;

	snprintf(name, sizeof(name), "%s.del", path);
	CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR,
	    MPI_INFO_NULL, &fh));
	if (rank == 0) {
		fill(buf, 0, BLOCK, seed ^ 0xde1);
		CHECK_MPI(MPI_File_write_at(fh, 0, buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE));
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank != 0) {
		usleep(300000);
		CHECK_MPI(MPI_File_read_at(fh, 0, buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE));
		err += compare(buf, 0, BLOCK, seed ^ 0xde1, "read just before close");
	}
	CHECK_MPI(MPI_File_close(&fh));
	if (rank == 0)
		CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
	return err;
}

/* Resize, atomic mode (accepted, no locks), delete. */
static int
file_ops(MPI_File *fh, const char *path)
{
	MPI_Offset fsize;
	int err = 0, cls, flag;

	CHECK_MPI(MPI_File_set_size(*fh, 12345));
	CHECK_MPI(MPI_File_get_size(*fh, &fsize));
	if (fsize != 12345) {
		fprintf(stderr, "rank %d: size after set_size %lld\n", rank, (long long)fsize);
		err++;
	}
	/* Accepted and reported, without locks: I/O in that mode must still
	 * work (ROMIO's lock calls land in the driver's no-op SetLock). */
	CHECK_MPI(MPI_File_set_atomicity(*fh, 1));
	CHECK_MPI(MPI_File_get_atomicity(*fh, &flag));
	if (flag != 1) {
		fprintf(stderr, "rank %d: atomicity %d after setting 1\n", rank, flag);
		err++;
	}
	err += atomic_io(*fh);
	CHECK_MPI(MPI_File_set_atomicity(*fh, 0));
	CHECK_MPI(MPI_File_close(fh));
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Error_class(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL,
	    fh), &cls);
	if (cls != MPI_ERR_NO_SUCH_FILE) {
		fprintf(stderr, "rank %d: open after delete gave class %d\n", rank, cls);
		err++;
	}
	return err;
}

int
main(int argc, char **argv)
{
	int64_t size;
	MPI_File fh;
	int err = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	if (argc < 2) {
		if (rank == 0)
			fprintf(stderr, "usage: mpiio-rw FILE [BYTES_PER_RANK]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	size = argc > 2 ? atoll(argv[2]) : 4 << 20;
	if (size < RECORD || size > INT32_MAX / 8) {
		if (rank == 0)
			fprintf(stderr, "mpiio-rw: BYTES_PER_RANK must be %d..%d\n", RECORD,
			    INT32_MAX / 8);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	seed = check_seed();
	fh = open_file(argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR);
	err += hints(argv[1]);
	err += hints_disagree(argv[1]);
	err += concurrent(fh, size);
	err += interleaved(fh, size, seed ^ 0x5555);
	err += close_then_delete(argv[1]);
	err += file_ops(&fh, argv[1]);
	err = check_verdict(err);
	MPI_Finalize();
	return err;
}
