/* gen_seeds.c - write the seed corpus: one valid frame per opcode and
 * direction, sample pvfstab/iodtab texts, and sample patterns.
 *   gen_seeds DIR   (creates DIR/frame, DIR/config, DIR/pattern) */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"

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
			pvfs_buf_init(&b);
			if (pvfs_frame_encode(&b, op, 1, reply, 0, msg) == 0) {
				snprintf(name, sizeof(name), "%s-%s",
				    pvfs_op_name(op), reply ? "rep" : "req");
				put_file(dir, "frame", name, b.data, b.len);
			}
			pvfs_buf_free(&b);
		}
	}
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
