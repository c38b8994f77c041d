/* fuzz_journal.c - libFuzzer target: the mgr's metadata files (journal and
 * snapshot bodies in both formats, and format-2 headers).  The first byte
 * picks the format and whether to salvage; the salt is the seeds' fixed
 * one, so mutations reach inside valid batches.  Oracle: the scanner's
 * accounting adds up, and every record it passes on re-encodes and decodes
 * to the same record. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mgr.h"

#define FUZZ_SALT 0x5eed5eed5eed5eedull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
fuzz_same(const struct mgr_rec *a, const struct mgr_rec *b)
{
	return a->type == b->type && a->parent == b->parent &&
	    a->parent2 == b->parent2 && a->ino == b->ino && a->gen == b->gen &&
	    a->mask == b->mask && a->mode == b->mode && a->time == b->time &&
	    a->namelen == b->namelen && a->namelen2 == b->namelen2 &&
	    (a->namelen == 0 || memcmp(a->name, b->name, a->namelen) == 0) &&
	    (a->namelen2 == 0 || memcmp(a->name2, b->name2, a->namelen2) == 0);
}

static void
fuzz_record(const struct mgr_rec *r, size_t off, void *arg)
{
	struct pvfs_buf b;
	struct pvfs_cur c;
	struct mgr_rec again;
	struct mgr_rec copy = *r;

	(void)off;
	(*(uint64_t *)arg)++;
	pvfs_buf_init(&b);
	mgr_record_encode(&b, &copy);
	pvfs_cur_init(&c, b.data, b.len);
	if (mgr_record_decode(&c, MGR_FORMAT, &again) != 0 || c.left != 0 ||
	    !fuzz_same(&copy, &again))
		abort();
	pvfs_buf_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mgr_file_hdr h;
	struct mgr_scan s;
	uint64_t seen = 0;

	if (size < 1)
		return 0;
	mgr_record_hdr_decode(data + 1, size - 1, data[0] & 1, &h);
	memset(&s, 0, sizeof(s));
	s.format = data[0] & 2 ? 1 : 2;
	s.salt = FUZZ_SALT;
	s.salvage = (data[0] & 4) != 0;
	s.fn = fuzz_record;
	s.arg = &seen;
	mgr_scan_run(&s, data + 1, size - 1);
	if (s.good_len > size - 1 || (s.end == MGR_SCAN_CLEAN &&
	    s.good_len != size - 1) || seen != s.records || s.bad_off > size - 1)
		abort();
	return 0;
}
