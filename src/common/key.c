/*
 * key.c - the file system's shared key: making it, checking who could
 * have read or replaced it, and loading it.
 *
 * Whoever can write the key file, or rename anything on the way to it,
 * can sign capabilities; whoever can read it can too.  So, as sshd's
 * StrictModes does, a key is refused unless its file and every directory
 * above it belong to root or to the user we run as, and nobody else can
 * write them; and others may not read the key at all (its group may,
 * when that is our own group, so a service group can share it).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

/* An owner we trust: root, or the user we run as. */
static int
key_owner_ok(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* One directory on the way to the key.  A sticky directory (/tmp) may be
 * writable by all: there only an entry's owner may rename or remove it. */
static int
key_check_dir(const char *dir, const char *key, char **cause)
{
	struct stat st;

	if (stat(dir, &st) != 0)
		return pvfs_set_cause(cause, "%s: %s", dir, strerror(errno)), -1;
	if (!key_owner_ok(st.st_uid))
		return pvfs_set_cause(cause, "%s: key directory of %s is owned by "
		    "uid %ld, not root or uid %ld (chown root %s)", dir, key,
		    (long)st.st_uid, (long)geteuid(), dir), -1;
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
	    (st.st_mode & S_ISVTX) == 0)
		return pvfs_set_cause(cause, "%s: key directory of %s is writable "
		    "by others than its owner (chmod go-w %s)", dir, key, dir), -1;
	return 0;
}

/* The key file itself. */
static int
key_check_file(const char *path, char **cause)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return pvfs_set_cause(cause, "%s: %s", path, strerror(errno)), -1;
	if (!S_ISREG(st.st_mode))
		return pvfs_set_cause(cause, "%s: key is not a regular file", path), -1;
	if (!key_owner_ok(st.st_uid))
		return pvfs_set_cause(cause, "%s: key is owned by uid %ld, not root "
		    "or uid %ld (chown %ld %s)", path, (long)st.st_uid,
		    (long)geteuid(), (long)geteuid(), path), -1;
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
		return pvfs_set_cause(cause, "%s: key is writable by others than "
		    "its owner (chmod 600 %s)", path, path), -1;
	if ((st.st_mode & S_IRWXO) != 0)
		return pvfs_set_cause(cause, "%s: key is readable by others "
		    "(chmod 600 %s)", path, path), -1;
	if ((st.st_mode & S_IRGRP) != 0 && st.st_gid != getegid())
		return pvfs_set_cause(cause, "%s: key is readable by group %ld, "
		    "not this daemon's group %ld (chmod 600 %s)", path,
		    (long)st.st_gid, (long)getegid(), path), -1;
	return 0;
}

int
pvfs_key_check(const char *path, char **cause)
{
	char real[PATH_MAX], *slash;

	if (realpath(path, real) == NULL)
		return pvfs_set_cause(cause, "%s: %s", path, strerror(errno)), -1;
	if (key_check_file(real, cause) != 0)
		return -1;
	/* Every directory from the key's up to the root. */
	while ((slash = strrchr(real, '/')) != NULL) {
		if (slash == real)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (key_check_dir(real, path, cause) != 0)
			return -1;
		if (slash == real)
			break;
	}
	return 0;
}

static int
hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Keys are stored as hex text (easy to copy between hosts); trailing
 * white space is ignored. */
int
pvfs_key_load(const char *path, uint8_t *key, size_t *keylen, char **cause)
{
	size_t n, i, out = 0;
	char *text;

	if (pvfs_key_check(path, cause) != 0)
		return -1;
	if ((text = pvfs_read_small_file(path, 4096, &n)) == NULL) {
		pvfs_set_cause(cause, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' ' || text[n - 1] == '\r'))
		n--;
	for (i = 0; i + 1 < n && out < 64; i += 2) {
		int hi = hex_value(text[i]), lo = hex_value(text[i + 1]);

		if (hi < 0 || lo < 0)
			break;
		key[out++] = (uint8_t)(hi << 4 | lo);
	}
	free(text);
	if (i != n || out < 16) {
		pvfs_set_cause(cause, "%s: not a key (want 32 to 128 hex digits)", path);
		return -1;
	}
	*keylen = out;
	return 0;
}

/* A new key never replaces an old one: every capability and every iod
 * that shares the old key would silently stop working. */
int
pvfs_key_create(const char *path, char **cause)
{
	uint8_t key[32];
	char hex[65];
	int i, fd;

	if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key)) {
		pvfs_set_cause(cause, "getrandom: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd == -1 || pvfs_write_all(fd, hex, 64) != 0 ||
	    pvfs_write_all(fd, "\n", 1) != 0 || fsync(fd) != 0) {
		pvfs_set_cause(cause, "%s: %s", path, strerror(errno));
		if (fd != -1) {
			close(fd);
			unlink(path);
		}
		return -1;
	}
	close(fd);
	return 0;
}
