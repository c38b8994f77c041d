/*
 * mgr-backup.c - pvfs-mgr --backup, --restore and --salvage: read one
 * metadata directory into memory and write it out as a new one, made
 * whole in DEST.tmp and renamed into place, so a DEST that exists is
 * complete.  The source is never written to.
 *
 *   --backup DEST   from a metadata directory, even while its mgr runs
 *                   (a consistent point in time: the snapshot in place
 *                   and every batch its journal held when read)
 *   --restore BKP   from a backup into the metadata directory, which must
 *                   be missing or empty
 *   --salvage DEST  from a damaged metadata directory: everything valid
 *                   is kept, and what was lost is listed on stdout and in
 *                   DEST/salvage-report
 *
 * Files keep their identity (inode and gen), so a restored or salvaged
 * file reads its own stripes and a new file never reads old ones.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mgr.h"

/* Files of a metadata directory that are not the name space but that the
 * mgr reads from it by default: a copy must carry them. */
static const char *const backup_extra[] = { "secret", "iodtab", NULL };

static char *
backup_path(char *buf, const char *dir, const char *name)
{
	if (snprintf(buf, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
		pvfs_fatal("%s: path too long", dir);
	return buf;
}

static uint64_t
backup_fsid(const char *dir)
{
	uint64_t fsid;

	if (mgr_load_fsid(dir, &fsid) != 0)
		pvfs_fatal("%s/fsid: %s (not a metadata directory?)", dir,
		    strerror(errno));
	return fsid;
}

/* A new private file holding len bytes, durable. */
static void
backup_put_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd == -1 || pvfs_write_all(fd, data, len) != 0 || fsync(fd) != 0)
		pvfs_fatal("%s: %s", path, strerror(errno));
	close(fd);
}

/* Copy a small private file, if the source has it. */
static void
backup_copy_extra(const char *src, const char *dst, const char *name)
{
	char from[PATH_MAX], to[PATH_MAX], *text;
	size_t len;

	backup_path(from, src, name);
	if ((text = pvfs_read_small_file(from, 1u << 20, &len)) == NULL) {
		if (errno == ENOENT)
			return;
		pvfs_fatal("%s: %s", from, strerror(errno));
	}
	backup_put_file(backup_path(to, dst, name), text, len);
	free(text);
}

/* The loaded name space as a new metadata directory tmp. */
static void
backup_write(const char *src, const char *tmp, uint64_t fsid)
{
	char path[PATH_MAX], text[32];
	uint64_t count, salt;
	int fd, i;

	if (mkdir(tmp, 0700) != 0)
		pvfs_fatal("%s: %s", tmp, strerror(errno));
	backup_path(path, tmp, "fsid");
	snprintf(text, sizeof(text), "%016" PRIx64, fsid);
	if (pvfs_write_file_atomic(path, text) != 0)
		pvfs_fatal("%s: %s", path, strerror(errno));
	if (mgr_journal_snapshot(tmp, "snapshot", fsid, 1, &count) != 0)
		pvfs_fatal("%s/snapshot: %s", tmp, strerror(errno));
	if (mgr_journal_create(tmp, fsid, 1, &fd, &salt) != 0)
		pvfs_fatal("%s/journal.1: %s", tmp, strerror(errno));
	close(fd);
	for (i = 0; backup_extra[i] != NULL; i++)
		backup_copy_extra(src, tmp, backup_extra[i]);
	if (mgr_journal_sync_path(tmp) != 0)
		pvfs_fatal("%s: fsync: %s", tmp, strerror(errno));
	printf("%" PRIu64 " inodes written, next inode %" PRIu64 "\n", count,
	    mgr_ns_next_ino());
}

/* The parent directory of path, for an fsync after the rename. */
static void
backup_sync_parent(const char *path)
{
	char parent[PATH_MAX], *slash;

	snprintf(parent, sizeof(parent), "%s", path);
	slash = strrchr(parent, '/');
	if (slash == NULL)
		snprintf(parent, sizeof(parent), ".");
	else if (slash == parent)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (mgr_journal_sync_path(parent) != 0)
		pvfs_fatal("%s: fsync: %s", parent, strerror(errno));
}

/* dest must not hold anything: a restore never overwrites. */
static void
backup_check_dest(int cmd, const char *dest)
{
	struct stat st;

	if (lstat(dest, &st) != 0) {
		if (errno != ENOENT)
			pvfs_fatal("%s: %s", dest, strerror(errno));
		return;
	}
	if (cmd == MGR_CMD_RESTORE && S_ISDIR(st.st_mode) && rmdir(dest) == 0)
		return; /* an empty metadata directory made ready for it */
	pvfs_fatal("%s: already exists%s; choose a new directory, or move it aside",
	    dest, cmd == MGR_CMD_RESTORE ? " and is not empty" : "");
}

/* Salvage's list of losses goes to stdout and into the new directory. */
static void
backup_report(const char *tmp, const char *text, size_t len)
{
	char path[PATH_MAX];

	fwrite(text, 1, len, stdout);
	backup_put_file(backup_path(path, tmp, "salvage-report"), text, len);
}

int
mgr_backup_main(int cmd, const char *metadir, const char *dest)
{
	const char *src = cmd == MGR_CMD_RESTORE ? dest : metadir;
	const char *dst = cmd == MGR_CMD_RESTORE ? metadir : dest;
	char tmp[PATH_MAX], *text = NULL;
	size_t textlen = 0;
	struct mgr_load l;

	backup_check_dest(cmd, dst);
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", dst) >= (int)sizeof(tmp))
		pvfs_fatal("%s: path too long", dst);
	memset(&l, 0, sizeof(l));
	l.dir = src;
	l.fsid = backup_fsid(src);
	l.online = cmd == MGR_CMD_BACKUP;
	l.salvage = cmd == MGR_CMD_SALVAGE;
	l.action = cmd == MGR_CMD_BACKUP ? "back it up" : "restore from it";
	if ((l.report = open_memstream(&text, &textlen)) == NULL)
		pvfs_fatal("out of memory");
	mgr_ns_init();
	mgr_load_dir(&l);
	fprintf(l.report, "%s: %" PRIu64 " inodes kept, %" PRIu64
	    " damaged places, %" PRIu64 " changes lost\n", src, mgr_ns_count(),
	    l.damaged, l.lost);
	fclose(l.report);
	backup_write(src, tmp, l.fsid);
	if (cmd == MGR_CMD_SALVAGE)
		backup_report(tmp, text, textlen);
	if (rename(tmp, dst) != 0)
		pvfs_fatal("rename %s to %s: %s", tmp, dst, strerror(errno));
	backup_sync_parent(dst);
	printf("%s: written\n", dst);
	free(text);
	mgr_load_free(&l);
	mgr_ns_free();
	return 0;
}
