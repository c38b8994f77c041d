/* gen_seeds.c - write the seed corpus: one valid frame per opcode and
 * direction, sample pvfstab/iodtab texts, sample patterns, and journal
 * bodies of every record type.
 *   cc -D_GNU_SOURCE -Isrc -Isrc/common -Isrc/mgr -Iinclude -I_build \
 *       tests/fuzz/gen_seeds.c $(ls src/common/*.c | \
 *       grep -v -e dconn.c -e dsignal.c -e counters.c) src/mgr/mgr-record.c \
 *       -o gen_seeds
 *   gen_seeds DIR   (creates DIR/frame, DIR/config, DIR/pattern,
 *                    DIR/journal) */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "mgr.h"

#define FUZZ_SALT 0x5eed5eed5eed5eedull /* as in fuzz_journal.c */

static void
put_file(const char *dir, const char *sub, const char *name, const void *p,
    size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	if ((f = fopen(path, "wb")) != NULL) {
		fwrite(p, 1, n, f);
		fclose(f);
	}
}

static void
frame_seeds(const char *dir)
{
	static uint8_t zero[16384];
	struct pvfs_iod_addr iod = { "127.0.0.1", 7000, "" };
	struct pvfs_mgr_fsinfo_rep fs = { 7, 65536, 1, &iod };
	struct pvfs_mgr_open_req open = { .flags = PVFS_OF_CREAT, .mode = 0644,
		.path = "/dir/file" };
	/* fsck's replies with one file / stripe file, so that the seeds
	 * hold their entries' shape (ino, gen, ...), not only empty arrays. */
	struct pvfs_ino_wire ino = { 258, 0x0123456789abcdefull,
		{ 1, 2, 65536 } };
	struct pvfs_mgr_inolist_rep inolist = { .next_ino = 300, .n = 1,
		.inos = &ino };
	struct pvfs_stripe_ent ent = { 258, 0x0123456789abcdefull, 4096 };
	struct pvfs_iod_list_rep list = { .eof = 1, .n = 1, .ents = &ent };
	/* IODSTATUS with one iod, for the entry's shape. */
	struct pvfs_iodstat_wire st = { .index = 0, .host = "127.0.0.1",
		.port = 7000, .state = PVFS_IODST_OK, .fsid = 7,
		.uuid = "0123456789abcdef0123456789abcdef", .skew_ms = -3 };
	struct pvfs_mgr_iodstatus_rep iodst = { .n = 1, .iods = &st };
	/* READDIRPLUS with one file, for the entry's shape. */
	struct pvfs_direntplus_wire pe = { .ent = { 258, 1, 8, "file" },
		.attr = { .ino = 258, .mode = 0100644, .nlink = 1,
		.dist = { 0, 4, 65536 } },
		.cap = { .fsid = 7, .ino = 258, .rights = PVFS_R_SIZE,
		.dist = { 0, 4, 65536 } } };
	struct pvfs_mgr_readdirplus_rep rdplus = { .eof = 1, .n = 1,
		.ents = &pe };
	/* SIZE_LIST with one pair, for the shapes. */
	struct pvfs_iod_size_ent sent = { .cap = pe.cap, .rel = 1 };
	struct pvfs_iod_size_list_req slreq = { .n = 1, .ents = &sent };
	struct pvfs_iod_size_item sitem = { .status = 0,
		.size = { 4096, 65536 * 3 + 4096, 1, 8 } };
	struct pvfs_iod_size_list_rep slrep = { .n = 1, .items = &sitem };
	/* COUNTERS with one request kind, for the shapes. */
	struct pvfs_opstat_wire os = { PVFS_MGR_OPEN, 10, 1, 14, 28, 56, 910,
		300 };
	struct pvfs_counters_rep ctr = { .uptime_ms = 1000, .conns_total = 3,
		.conns_open = 1, .bytes_in = 100, .bytes_out = 200, .n = 1,
		.ops = &os };
	static struct pvfs_link_rep link = { 0, 6, "../target" };
	struct pvfs_buf b;
	char name[64];
	uint16_t op;
	int reply;

	for (op = PVFS_MGR_PING; op < PVFS_IOD_OP_END; op++) {
		if (op == PVFS_MGR_OP_END)
			op = PVFS_IOD_PING;
		for (reply = 0; reply < 2; reply++) {
			const void *msg = zero;

			if (op == PVFS_MGR_FSINFO && reply)
				msg = &fs;
			if (op == PVFS_MGR_OPEN && !reply)
				msg = &open;
			if (op == PVFS_MGR_INOLIST && reply)
				msg = &inolist;
			if (op == PVFS_IOD_LIST && reply)
				msg = &list;
			if (op == PVFS_MGR_IODSTATUS && reply)
				msg = &iodst;
			if (op == PVFS_MGR_READDIRPLUS && reply)
				msg = &rdplus;
			if ((op == PVFS_MGR_COUNTERS || op == PVFS_IOD_COUNTERS) &&
			    reply)
				msg = &ctr;
			if (op == PVFS_IOD_SIZE_LIST)
				msg = reply ? (const void *)&slrep : &slreq;
			pvfs_buf_init(&b);
			if (pvfs_frame_encode(&b, op, 1, reply, 0, msg) == 0) {
				snprintf(name, sizeof(name), "%s-%s",
				    pvfs_op_name(op), reply ? "rep" : "req");
				put_file(dir, "frame", name, b.data, b.len);
			}
			pvfs_buf_free(&b);
		}
	}
	/* A link met: the status-specific body (protocol 8). */
	pvfs_buf_init(&b);
	if (pvfs_frame_encode(&b, PVFS_MGR_STAT, 1, 1, PVFS_ST_LINK, &link) == 0)
		put_file(dir, "frame", "MGR_STAT-link", b.data, b.len);
	pvfs_buf_free(&b);
}

/* Format 2: a byte choosing the mode, then batches of every record type;
 * format 1: the same records framed alone. */
static void
journal_seeds(const char *dir)
{
	/* END last: format 1 below reuses it. */
	static const int types[] = { MGR_REC_CREATE, MGR_REC_MKDIR,
		MGR_REC_UNLINK, MGR_REC_RMDIR, MGR_REC_RENAME, MGR_REC_SETATTR,
		MGR_REC_SYMLINK, MGR_REC_LINK, MGR_REC_ORPHAN, MGR_REC_FREE,
		MGR_REC_MKNOD, MGR_REC_MIRROR, MGR_REC_DIRTY, MGR_REC_CLEAN,
		MGR_REC_REBUILD, MGR_REC_END };
	struct mgr_batch b;
	struct pvfs_buf out, one;
	struct mgr_rec r;
	int i, t, seq = 0;

	memset(&b, 0, sizeof(b));
	memset(&out, 0, sizeof(out));
	pvfs_buf_put_u8(&out, 0);
	for (i = 0; i < (int)(sizeof(types) / sizeof(types[0])); i++) {
		t = types[i];
		memset(&r, 0, sizeof(r));
		r.type = (uint8_t)t;
		r.parent = 1;
		r.parent2 = 1;
		r.ino = 2 + (uint64_t)t;
		r.gen = 0x1234;
		r.mask = MGR_REC_ALL;
		r.mode = t == MGR_REC_MKNOD ? 0010644 : 0644;
		r.rdev = 0;
		r.name = "file";
		r.namelen = 4;
		r.name2 = "other";
		r.namelen2 = 5;
		r.target = "../target";
		r.targetlen = 9;
		r.dist.copies = t == MGR_REC_MIRROR ? 2 : 0;
		r.dist.mshift = t == MGR_REC_MIRROR ? 1 : 0;
		r.rel = 1;
		r.copy = 1;
		r.offset = 4096;
		r.length = t == MGR_REC_DIRTY ? 8192 : 0;
		r.dgen = 1;
		mgr_batch_add(&b, &r);
		if (i % 2 == 1) {
			mgr_batch_seal(&b, (uint64_t)++seq, FUZZ_SALT);
			pvfs_buf_put(&out, b.buf.data, b.buf.len);
			mgr_batch_reset(&b);
		}
	}
	if (b.nrec > 0) {
		mgr_batch_seal(&b, (uint64_t)++seq, FUZZ_SALT);
		pvfs_buf_put(&out, b.buf.data, b.buf.len);
	}
	put_file(dir, "journal", "format2", out.data, out.len);
	pvfs_buf_reset(&out);
	pvfs_buf_put_u8(&out, 2);
	memset(&one, 0, sizeof(one));
	mgr_record_encode(&one, &r); /* END: the same bytes in format 1 */
	pvfs_buf_put_u32(&out, (uint32_t)one.len);
	pvfs_buf_put_u32(&out, pvfs_crc32c(0, one.data, one.len));
	pvfs_buf_put(&out, one.data, one.len);
	put_file(dir, "journal", "format1", out.data, out.len);
}

int
main(int argc, char **argv)
{
	const char *tab = "node0:/meta /pvfs pvfs port=3000,timeout=5 0 0\n"
	    "# comment\nh:/m /scratch pvfs defaults\n"
	    "h:/m /sec pvfs sock=/run/pvfs/mgr.sock,auth=munge,"
	    "munge_socket=/run/munge/munge.socket.2 0 0\n";
	const char *iodtab = "127.0.0.1:7000\n[::1]:7001\nhost\n"
	    "127.0.0.1:7002 unix=/run/pvfs/iod2.sock\n";
	uint8_t pat[40];

	if (argc != 2)
		return 2;
	mkdir(argv[1], 0755);
	frame_seeds(argv[1]);
	journal_seeds(argv[1]);
	put_file(argv[1], "config", "pvfstab", tab, strlen(tab));
	put_file(argv[1], "config", "iodtab", iodtab, strlen(iodtab));
	memset(pat, 0, sizeof(pat));
	pvfs_be64_put(pat + 8, 4095);
	pvfs_be64_put(pat + 16, 8192);
	pvfs_be64_put(pat + 24, 9);
	pvfs_be32_put(pat + 32, 3);
	pvfs_be16_put(pat + 36, 1000);
	put_file(argv[1], "pattern", "strided", pat, sizeof(pat));
	return 0;
}
