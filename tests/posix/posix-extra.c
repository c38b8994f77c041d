/*
 * posix-extra.c - the differential suite's checks beyond a row (see
 * test_paths.c): relative paths longer than the kernel takes, sockets
 * bound on PVFS names, copy_file_range, sendfile and splice, the links
 * the shim resolves itself (getcwd, realpath, readdir's type, faccessat),
 * and the native API's answer for a link out of PVFS.
 */
#include "posix.h"

/* Under a virtual cwd, a relative path is limited as the kernel limits
 * it (its own length), and where the joined name passes PVFS_PATH_MAX
 * under the prefix the answer is ENAMETOOLONG, never a local ENOENT or
 * EXDEV. */
void
long_relative(const char *pvfs)
{
	char name[201], cwd[PATH_MAX], rel[PATH_MAX + 16];
	struct stat st;
	size_t len;
	int i, rc;

	memset(name, 'a', 200);
	name[200] = '\0';
	snprintf(cwd, sizeof(cwd), "%s/long", pvfs);
	if (mkdir(cwd, 0755) != 0 || chdir(cwd) != 0) {
		fail("not ok - long: %s: %s\n", cwd, strerror(errno));
		return;
	}
	/* 15 levels down: the cwd is some 3,000 bytes long. */
	for (i = 0; i < 15; i++)
		if (mkdir(name, 0755) != 0 || chdir(name) != 0) {
			fail("not ok - long: level %d: %s\n", i, strerror(errno));
			return;
		}
	/* "../" x 15 then 4 names: short joined after the cwd's "..". */
	rel[0] = '\0';
	for (i = 0; i < 15; i++)
		strcat(rel, "../");
	for (i = 0; i < 4; i++) {
		strcat(rel, name);
		rc = mkdir(rel, 0755);
		strcat(rel, "/");
		if (rc != 0 && errno != EEXIST) {
			fail("not ok - long: mkdir up-and-down: %s\n", strerror(errno));
			return;
		}
	}
	ran++;
	printf("ok - long: \"../\"x15 from a 3,000-byte cwd\n");
	/* 6 more names (1,200 bytes) below the cwd: past the wire's limit. */
	rel[0] = '\0';
	for (i = 0; i < 6; i++) {
		strcat(rel, name);
		errno = 0;
		rc = mkdir(rel, 0755);
		if (rc != 0 && errno != ENAMETOOLONG) {
			fail("not ok - long: mkdir at %zu bytes: %s\n", strlen(rel),
			    strerrorname_np(errno));
			return;
		}
		strcat(rel, "/");
	}
	errno = 0;
	rc = stat(rel, &st);
	ran++;
	if (rc == 0 || errno != ENAMETOOLONG)
		fail("not ok - long: stat past PVFS_PATH_MAX: %d %s\n", rc,
		    strerrorname_np(errno));
	else
		printf("ok - long: past PVFS_PATH_MAX under the prefix: ENAMETOOLONG\n");
	/* The caller's own string at PATH_MAX: the kernel's ENAMETOOLONG. */
	for (len = strlen(rel); len < PATH_MAX + 8; len++)
		rel[len] = 'b';
	rel[len] = '\0';
	errno = 0;
	rc = stat(rel, &st);
	ran++;
	if (rc == 0 || errno != ENAMETOOLONG)
		fail("not ok - long: relative string of %zu bytes: %d %s\n", len,
		    rc, strerrorname_np(errno));
	else
		printf("ok - long: a relative string over PATH_MAX: ENAMETOOLONG\n");
	if (chdir("/") != 0)
		abort();
}

/* A relative AF_UNIX name under a virtual cwd is bound in PVFS (a
 * socket node there, doc/api.md), never in the kernel's unrelated cwd;
 * and copy_file_range and sendfile move bytes between PVFS and local
 * files. */
void
sockets_and_copies(const char *local, const char *pvfs)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX, .sun_path = "sock" };
	char lf[PATH_MAX + 16], pf[PATH_MAX + 16], buf[64];
	struct stat st;
	off64_t off = 0;
	int s, in, out;

	if (chdir(pvfs) != 0)
		abort();
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	check(bind(s, (struct sockaddr *)&un, sizeof(un)) == 0 && listen(s, 1) == 0,
	    "bind(\"sock\") under a PVFS cwd: a socket in PVFS");
	check(stat("/sock", &st) != 0, "... nothing bound in the kernel's cwd");
	check(stat("sock", &st) == 0 && S_ISSOCK(st.st_mode),
	    "... stat(\"sock\") is a socket");
	close(s);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	errno = 0;
	check(connect(s, (struct sockaddr *)&un, sizeof(un)) < 0 &&
	    errno == ECONNREFUSED, "connect(\"sock\") after its socket closed: "
	    "ECONNREFUSED");
	un.sun_path[0] = 'x';
	errno = 0;
	check(connect(s, (struct sockaddr *)&un, sizeof(un)) < 0 &&
	    errno == ENOENT, "connect(\"xock\"): ENOENT");
	close(s);
	if (chdir("/") != 0)
		abort();
	snprintf(lf, sizeof(lf), "%s/copy-src", local);
	snprintf(pf, sizeof(pf), "%s/copy-dst", pvfs);
	in = open(lf, O_CREAT | O_RDWR | O_TRUNC, 0644);
	check(in >= 0 && write(in, "0123456789", 10) == 10, "local source");
	out = open(pf, O_CREAT | O_RDWR | O_TRUNC, 0644);
	/* Through a mount the kernel itself refuses a copy across file
	 * systems (EXDEV), and callers (cp) fall back to read and write. */
	if (on_mount && copy_file_range(in, &off, out, NULL, 100, 0) < 0 &&
	    errno == EXDEV) {
		ran++;
		printf("ok - copy_file_range local -> mount: EXDEV, the kernel's\n");
		close(in);
		close(out);
		return;
	}
	check(copy_file_range(in, &off, out, NULL, 100, 0) == 10 && off == 10,
	    "copy_file_range local -> PVFS: 10 bytes");
	check(copy_file_range(in, &off, out, NULL, 100, 0) == 0,
	    "... then 0 at end of file");
	off = 2;
	check(sendfile(in, out, &off, 3) == 3 && off == 5,
	    "sendfile PVFS -> local: 3 bytes");
	check(pread(out, buf, 10, 0) == 10 && memcmp(buf, "0123456789", 10) == 0 &&
	    pread(in, buf, 13, 0) == 13 && memcmp(buf, "0123456789234", 13) == 0,
	    "... the bytes arrived");
	close(in);
	close(out);
}

/* splice between a PVFS file and a pipe moves the bytes, either way; the
 * kernel's rules stay (a pipe on one side, no offset for the pipe). */
void
splices(const char *pvfs)
{
	char pf[PATH_MAX + 16], buf[64];
	off64_t off = 4;
	int p[2], fd;

	snprintf(pf, sizeof(pf), "%s/splice", pvfs);
	fd = open(pf, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0 || pipe(p) != 0)
		abort();
	check(write(p[1], "abcdefgh", 8) == 8 &&
	    splice(p[0], NULL, fd, NULL, 100, 0) == 8,
	    "splice pipe -> PVFS: the 8 bytes in the pipe, no wait for more");
	check(splice(fd, &off, p[1], NULL, 3, 0) == 3 && off == 7 &&
	    read(p[0], buf, sizeof(buf)) == 3 && memcmp(buf, "efg", 3) == 0,
	    "splice PVFS -> pipe at an offset: 3 bytes, offset moved");
	check(lseek(fd, 0, SEEK_CUR) == 8 && pread(fd, buf, 8, 0) == 8 &&
	    memcmp(buf, "abcdefgh", 8) == 0, "... the file has them, offset kept");
	errno = 0;
	check(splice(fd, NULL, fd, NULL, 1, 0) < 0 && errno == EINVAL,
	    "splice PVFS -> PVFS: EINVAL (no pipe)");
	errno = 0;
	off = 0;
	check(splice(p[0], &off, fd, NULL, 1, 0) < 0 && errno == ESPIPE,
	    "splice with an offset for the pipe: ESPIPE");
	close(p[0]);
	close(p[1]);
	close(fd);
}

/* What the shim resolves itself: getcwd after chdir through a link is
 * the physical directory (and ".." climbs from it), realpath resolves
 * links, readdir says DT_LNK. */
void
links_resolved(const char *pvfs)
{
	char p[PATH_MAX], want[PATH_MAX], got[PATH_MAX], *rp;
	struct dirent *de;
	DIR *d;
	int lnk = 0;

	snprintf(p, sizeof(p), "%s/rp", pvfs);
	check(mkdir(p, 0755) == 0 && chdir(p) == 0 && mkdir("a", 0755) == 0 &&
	    mkdir("a/b", 0755) == 0 && symlink("a/b", "lb") == 0,
	    "rp/a/b and rp/lb -> a/b");
	snprintf(want, sizeof(want), "%s/rp/a/b", pvfs);
	check(chdir("lb") == 0 && getcwd(got, sizeof(got)) != NULL &&
	    strcmp(got, want) == 0, "getcwd after chdir through a link: physical");
	snprintf(want, sizeof(want), "%s/rp/a", pvfs);
	check(chdir("..") == 0 && getcwd(got, sizeof(got)) != NULL &&
	    strcmp(got, want) == 0, "... and \"..\" climbs from there");
	snprintf(p, sizeof(p), "%s/rp/lb/..", pvfs);
	rp = realpath(p, NULL);
	check(rp != NULL && strcmp(rp, want) == 0, "realpath(rp/lb/..) = rp/a");
	free(rp);
	snprintf(p, sizeof(p), "%s/rp", pvfs);
	if ((d = opendir(p)) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (strcmp(de->d_name, "lb") == 0)
				lnk = de->d_type == DT_LNK;
		closedir(d);
	}
	check(lnk, "readdir: a link is DT_LNK");
	snprintf(p, sizeof(p), "%s/rp/dang", pvfs);
	check(symlink("nowhere", p) == 0 &&
	    faccessat(AT_FDCWD, p, W_OK, AT_SYMLINK_NOFOLLOW) == 0,
	    "faccessat(AT_SYMLINK_NOFOLLOW) of a dangling link: the link, 0");
	errno = 0;
	check(faccessat(AT_FDCWD, p, F_OK, 0) < 0 && errno == ENOENT,
	    "... and following it: ENOENT");
	if (chdir("/") != 0)
		abort();
}

/* The native API answers a link out of PVFS as it answers a local path
 * (ENOENT); the link itself is there. */
void
native_escape(const char *pvfs)
{
	char p[PATH_MAX + 16];
	struct stat st;

	snprintf(p, sizeof(p), "%s/escape", pvfs);
	check(pvfs_symlink("/dev/null", p) == 0, "native: escape -> /dev/null");
	errno = 0;
	check(pvfs_stat(p, &st) != 0 && errno == ENOENT,
	    "native: stat through a link out of PVFS: ENOENT");
	check(pvfs_lstat(p, &st) == 0 && S_ISLNK(st.st_mode) && st.st_size == 9,
	    "native: lstat of it: a link of 9 bytes");
}
