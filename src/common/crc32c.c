/* crc32c.c - CRC-32C (Castagnoli); guards journal records.  The SSE4.2
 * instruction where the CPU has it (a load of millions of records reads a
 * gigabyte: doc/benchmarks.md), else table driven. */
#include <string.h>

#include "common.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <nmmintrin.h>
#define CRC_HW 1

__attribute__((target("sse4.2"))) static uint32_t
crc_hw(uint32_t crc, const uint8_t *p, size_t n)
{
	uint64_t c = crc, v;

	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&v, p, 8);
		c = _mm_crc32_u64(c, v);
	}
	crc = (uint32_t)c;
	while (n-- > 0)
		crc = _mm_crc32_u8(crc, *p++);
	return crc;
}
#endif

static uint32_t crc_table[256];

static void
crc_table_init(void)
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t
pvfs_crc32c(uint32_t crc, const void *data, size_t n)
{
	const uint8_t *p = data;
#ifdef CRC_HW
	if (__builtin_cpu_supports("sse4.2"))
		return ~crc_hw(~crc, p, n);
#endif
	if (crc_table[1] == 0)
		crc_table_init();
	crc = ~crc;
	while (n-- > 0)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
