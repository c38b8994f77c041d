/* crc32c.c - CRC-32C (Castagnoli), table driven; guards journal records. */
#include "common.h"

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

	if (crc_table[1] == 0)
		crc_table_init();
	crc = ~crc;
	while (n-- > 0)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
