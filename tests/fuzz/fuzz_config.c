/* fuzz_config.c - libFuzzer target: the pvfstab and iod table parsers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *cause = NULL;
	struct pvfs_tab_entry *tab = NULL;
	struct pvfs_iod_addr *iods = NULL;
	int n, i;

	memcpy(text, data, size);
	text[size] = '\0';
	n = pvfs_tab_parse(text, "fuzz", &tab, &cause);
	for (i = 0; i < n; i++)
		if (tab[i].prefix[0] != '/' || tab[i].port == 0)
			abort();
	free(tab);
	free(cause);
	cause = NULL;
	n = pvfs_iodtab_parse(text, "fuzz", &iods, &cause);
	for (i = 0; i < n; i++)
		if (iods[i].port == 0 || iods[i].host[0] == '\0')
			abort();
	free(iods);
	free(cause);
	free(text);
	return 0;
}
