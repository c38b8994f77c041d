/* files.c - whole local files for the tests (see files.h). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "files.h"

uint8_t *
file_slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *p;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		fail_msg("%s: %s", path, strerror(errno));
	*len = (size_t)st.st_size;
	p = malloc(*len + 1);
	assert_non_null(p);
	if (read(fd, p, *len) != (ssize_t)*len)
		fail_msg("%s: short read", path);
	close(fd);
	return p;
}

void
file_spill(const char *path, const uint8_t *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, p, len) != (ssize_t)len || close(fd) < 0)
		fail_msg("%s: %s", path, strerror(errno));
}

void
file_text(const char *path, char *buf, size_t buflen)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, buflen - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

void
assert_contains(const char *text, const char *what)
{
	if (strstr(text, what) == NULL)
		fail_msg("expected \"%s\" in: %s", what, text);
}
