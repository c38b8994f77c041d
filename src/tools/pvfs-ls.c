/*
 * pvfs-ls - list PVFS directories and files, like GNU ls.
 *
 * The entries of a listing are read (one stat each), sorted, then printed
 * in one of three formats: long (-l), one per line (-1, the default when
 * standard output is not a terminal) or columns (-C, the default on a
 * terminal), laid out as GNU ls lays them out: the most columns, each as
 * wide as its widest name plus two, whose sum stays under the line width;
 * names fill the columns top to bottom.
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <locale.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "libpvfs/pvfs-client.h"
#include "tools.h"

static const char usage[] =
"Usage: pvfs-ls [OPTION]... [PATH]...\n"
"List PVFS files and directory contents, sorted by name, like ls.  A PATH is\n"
"under a pvfstab mount prefix (/pvfs/dir) or a URL (pvfs://host:port/dir);\n"
"with no PATH, the first mount prefix of the pvfstab is listed.\n"
"\n"
"  -a, --all            include entries whose names begin with '.', and . ..\n"
"  -A, --almost-all     include entries whose names begin with '.', not . ..\n"
"  -l                   long listing: mode, links, owner, group, size, mtime\n"
"  -n, --numeric-uid-gid  like -l, with numeric user and group ids\n"
"  -h, --human-readable   with -l, sizes like 1.5K, 23M, 4.0G\n"
"  -i, --inode          print each file's inode number\n"
"  -R, --recursive      list subdirectories recursively\n"
"  -d, --directory      list directories themselves, not their contents\n"
"  -t                   sort by modification time, newest first\n"
"  -S                   sort by size, largest first\n"
"  -r, --reverse        reverse the order of the sort\n"
"  -1                   one name per line (the default when not a terminal)\n"
"  -C                   names in columns (the default on a terminal)\n"
"  -w, --width=COLS     the line width for -C (0: no limit)\n"
"  -F, --classify       append / to directories, * to executables\n"
"      --color[=WHEN]   color names: always (no WHEN), auto, never\n"
"      --dist           add each file's distribution: base, pcount, ssize\n"
"      --help           show this help and exit\n"
"      --version        show the version and exit\n"
"\n"
"Exit status: 0 success, 1 if any PATH could not be listed, 2 bad usage.\n";

enum { OPT_DIST = 0x100, OPT_COLOR };

static const struct option longopts[] = {
	{ "all", no_argument, NULL, 'a' },
	{ "almost-all", no_argument, NULL, 'A' },
	{ "numeric-uid-gid", no_argument, NULL, 'n' },
	{ "human-readable", no_argument, NULL, 'h' },
	{ "inode", no_argument, NULL, 'i' },
	{ "recursive", no_argument, NULL, 'R' },
	{ "directory", no_argument, NULL, 'd' },
	{ "reverse", no_argument, NULL, 'r' },
	{ "width", required_argument, NULL, 'w' },
	{ "classify", no_argument, NULL, 'F' },
	{ "color", optional_argument, NULL, OPT_COLOR },
	{ "colour", optional_argument, NULL, OPT_COLOR },
	{ "dist", no_argument, NULL, OPT_DIST },
	TOOL_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

enum ls_format { FMT_ONE, FMT_COLS, FMT_LONG };
enum ls_sort { SORT_NAME, SORT_TIME, SORT_SIZE };
enum ls_dots { DOTS_HIDE, DOTS_ALMOST, DOTS_ALL };

static enum ls_format opt_format;
static enum ls_sort opt_sort = SORT_NAME;
static enum ls_dots opt_dots = DOTS_HIDE;
static int opt_rec, opt_human, opt_dir, opt_dist, opt_rev, opt_classify;
static int opt_inode, opt_numeric, opt_color;
static size_t line_width = 80, tab_size = 8;
static int color_used;

struct ls_ent {
	char *name;  /* as printed */
	char *path;  /* to stat */
	struct stat st;
	struct pvfs_attr_info dist;
	char *target;        /* a link's text, NULL otherwise */
	struct stat tst;     /* what the link leads to, if tok */
	int tok;
	int nosize;          /* a regular file its iods could not size */
};

struct ls_width {
	int inode, links, owner, group, size;
};

/* ---- colors: GNU ls's defaults, overridden by LS_COLORS's type keys ---- */

enum { COL_DI, COL_EX, COL_FI, COL_LN, COL_PI, COL_SO, COL_BD, COL_CD,
	COL_SU, COL_SG, COL_TW, COL_OW, COL_ST, COL_N };
static const char *color_key[COL_N] = {
	"di", "ex", "fi", "ln", "pi", "so", "bd", "cd", "su", "sg", "tw", "ow",
	"st"
};
static char *color_seq[COL_N] = {
	"01;34", "01;32", "", "01;36", "40;33", "01;35", "40;33;01",
	"40;33;01", "37;41", "30;43", "30;42", "34;42", "37;44"
};

/* LS_COLORS "di=01;34:ex=01;32:*.tar=01;31": the two-letter type keys
 * above are taken; patterns (*.tar) and the other keys are ignored. */
static void
ls_parse_colors(void)
{
	const char *env = getenv("LS_COLORS");
	char *s, *tok, *save, *eq;
	int i;

	if (env == NULL || *env == '\0')
		return;
	s = strdup(env);
	for (tok = strtok_r(s, ":", &save); tok != NULL;
	    tok = strtok_r(NULL, ":", &save)) {
		if ((eq = strchr(tok, '=')) == NULL)
			continue;
		*eq = '\0';
		for (i = 0; i < COL_N; i++)
			if (strcmp(tok, color_key[i]) == 0)
				color_seq[i] = eq + 1;
	}
	/* s stays allocated: color_seq points into it */
}

/* A sequence that colors nothing ("", "0", "00") is none. */
static int
ls_colored(int k)
{
	const char *s = color_seq[k];

	return *s != '\0' && strcmp(s, "0") != 0 && strcmp(s, "00") != 0;
}

/* GNU ls's choice of color for a file's mode, or NULL. */
static const char *
ls_color_of(mode_t m)
{
	int k = -1;

	if (S_ISDIR(m)) {
		if ((m & S_ISVTX) && (m & S_IWOTH) && ls_colored(COL_TW))
			k = COL_TW;
		else if ((m & S_IWOTH) && ls_colored(COL_OW))
			k = COL_OW;
		else if ((m & S_ISVTX) && ls_colored(COL_ST))
			k = COL_ST;
		else
			k = COL_DI;
	} else if (S_ISREG(m)) {
		if ((m & S_ISUID) && ls_colored(COL_SU))
			k = COL_SU;
		else if ((m & S_ISGID) && ls_colored(COL_SG))
			k = COL_SG;
		else if ((m & 0111) && ls_colored(COL_EX))
			k = COL_EX;
		else
			k = COL_FI;
	} else if (S_ISLNK(m))
		k = COL_LN;
	else if (S_ISFIFO(m))
		k = COL_PI;
	else if (S_ISSOCK(m))
		k = COL_SO;
	else if (S_ISBLK(m))
		k = COL_BD;
	else if (S_ISCHR(m))
		k = COL_CD;
	return k >= 0 && ls_colored(k) ? color_seq[k] : NULL;
}

/* --color=WHEN as GNU ls reads it: no WHEN is always. */
static int
ls_color_when(const char *when)
{
	const char *term;

	if (when == NULL || strcmp(when, "always") == 0 ||
	    strcmp(when, "yes") == 0 || strcmp(when, "force") == 0)
		return 1;
	if (strcmp(when, "never") == 0 || strcmp(when, "no") == 0 ||
	    strcmp(when, "none") == 0)
		return 0;
	if (strcmp(when, "auto") == 0 || strcmp(when, "tty") == 0 ||
	    strcmp(when, "if-tty") == 0) {
		term = getenv("TERM");
		return isatty(STDOUT_FILENO) && term != NULL &&
		    strcmp(term, "dumb") != 0;
	}
	tool_usage_error("invalid argument '%s' for '--color' "
	    "(always, auto, never)", when);
}

/* ---- one entry: mode, ids, sizes, times, name ---- */

static void
ls_mode(mode_t m, char *s)
{
	static const char rwx[] = "rwxrwxrwx";
	int i;

	s[0] = S_ISDIR(m) ? 'd' : S_ISREG(m) ? '-' : S_ISLNK(m) ? 'l' :
	    S_ISFIFO(m) ? 'p' : S_ISSOCK(m) ? 's' : S_ISBLK(m) ? 'b' :
	    S_ISCHR(m) ? 'c' : '?';
	for (i = 0; i < 9; i++)
		s[i + 1] = (m & (0400 >> i)) ? rwx[i] : '-';
	if (m & S_ISUID)
		s[3] = (m & S_IXUSR) ? 's' : 'S';
	if (m & S_ISGID)
		s[6] = (m & S_IXGRP) ? 's' : 'S';
	if (m & S_ISVTX)
		s[9] = (m & S_IXOTH) ? 't' : 'T';
	s[10] = '\0';
}

/* The name of the user (group 0) or group id, else its number. */
static const char *
ls_id(int group, unsigned id, char *buf, size_t len)
{
	struct passwd *pw;
	struct group *gr;

	if (!opt_numeric && !group && (pw = getpwuid((uid_t)id)) != NULL)
		return pw->pw_name;
	if (!opt_numeric && group && (gr = getgrgid((gid_t)id)) != NULL)
		return gr->gr_name;
	snprintf(buf, len, "%u", id);
	return buf;
}

/* GNU ls -h: powers of 1024, rounded up, one decimal below 10. */
static const char *
ls_human(uint64_t n, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	uint64_t scale = 1, tenths, whole;
	int i = -1;

	if (n < 1024) {
		snprintf(buf, len, "%llu", (unsigned long long)n);
		return buf;
	}
	while (n / scale >= 1024 && i < 5) {
		scale *= 1024;
		i++;
	}
	tenths = n / scale * 10 + ((n % scale) * 10 + scale - 1) / scale;
	if (tenths < 100) {
		snprintf(buf, len, "%llu.%llu%c", (unsigned long long)tenths / 10,
		    (unsigned long long)tenths % 10, units[i]);
		return buf;
	}
	whole = n / scale + (n % scale != 0);
	if (whole >= 1024 && i < 5)
		snprintf(buf, len, "1.0%c", units[++i]);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)whole, units[i]);
	return buf;
}

/* A device shows "major, minor" where others show a size, as GNU ls; a
 * size that could not be had shows "?", as GNU ls shows what it cannot
 * get. */
static const char *
ls_size(const struct ls_ent *e, char *buf, size_t len)
{
	const struct stat *st = &e->st;

	if (e->nosize) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) {
		snprintf(buf, len, "%u, %u", major(st->st_rdev), minor(st->st_rdev));
		return buf;
	}
	if (opt_human)
		return ls_human((uint64_t)st->st_size, buf, len);
	snprintf(buf, len, "%lld", (long long)st->st_size);
	return buf;
}

/* ls's rule: recent times (within six months) show the clock. */
static void
ls_time(time_t t, char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	if (t > now - 182 * 86400 && t < now + 3600)
		strftime(buf, len, "%b %e %H:%M", &tm);
	else
		strftime(buf, len, "%b %e  %Y", &tm);
}

/* -F's mark after the name, or 0. */
static int
ls_indicator(mode_t m)
{
	if (!opt_classify)
		return 0;
	if (S_ISDIR(m))
		return '/';
	if (S_ISLNK(m))
		return '@';
	if (S_ISFIFO(m))
		return '|';
	if (S_ISSOCK(m))
		return '=';
	if (S_ISREG(m) && (m & 0111))
		return '*';
	return 0;
}

/* Columns a name takes on the terminal (bytes when not valid text). */
static size_t
ls_text_width(const char *s)
{
	mbstate_t ps;
	size_t n, w = 0;
	wchar_t wc;
	int cw;

	memset(&ps, 0, sizeof(ps));
	while (*s != '\0') {
		n = mbrtowc(&wc, s, MB_CUR_MAX, &ps);
		if (n == (size_t)-1 || n == (size_t)-2) {
			memset(&ps, 0, sizeof(ps));
			n = 1;
			cw = 1;
		} else if ((cw = wcwidth(wc)) < 0)
			cw = 1;
		w += (size_t)cw;
		s += n;
	}
	return w;
}

/* Width of what ls_put_name prints. */
static size_t
ls_name_width(const struct ls_ent *e, const struct ls_width *w)
{
	size_t n = ls_text_width(e->name);

	if (opt_inode)
		n += (size_t)w->inode + 1;
	if (ls_indicator(e->st.st_mode))
		n++;
	return n;
}

/* s in the color of mode m, if asked for.  As GNU ls does, the first
 * color is preceded by a reset. */
static void
ls_put_colored(const char *s, mode_t m)
{
	const char *c = opt_color ? ls_color_of(m) : NULL;

	if (c != NULL) {
		if (!color_used)
			fputs("\033[0m", stdout);
		color_used = 1;
		printf("\033[%sm%s\033[0m", c, s);
	} else
		fputs(s, stdout);
}

/* [inode ]name[mark]; -l shows a link as "name -> target", the target
 * in its own color and with its own mark, as GNU ls does. */
static void
ls_put_name(const struct ls_ent *e, const struct ls_width *w)
{
	int link = e->target != NULL && opt_format == FMT_LONG;
	int mark = link ? 0 : ls_indicator(e->st.st_mode);

	if (opt_inode && opt_format != FMT_LONG)
		printf("%*llu ", w->inode, (unsigned long long)e->st.st_ino);
	ls_put_colored(e->name, e->st.st_mode);
	if (mark)
		putchar(mark);
	if (!link)
		return;
	fputs(" -> ", stdout);
	ls_put_colored(e->target, e->tok ? e->tst.st_mode : e->st.st_mode);
	if (e->tok && (mark = ls_indicator(e->tst.st_mode)) != 0)
		putchar(mark);
}

/* A link's text, and what it leads to (if anything). */
static int
ls_fill_link(struct ls_ent *e)
{
	char buf[PATH_MAX];
	ssize_t n;

	if ((n = pvfs_readlink(e->path, buf, sizeof(buf) - 1)) < 0)
		return -1;
	buf[n] = '\0';
	if ((e->target = strdup(buf)) == NULL)
		return -1;
	e->tok = pvfs_stat(e->path, &e->tst) == 0;
	return 0;
}

/* lstat failed, the mgr answering but not an iod (one is down): the
 * mgr's attributes, the size unknown.  The iod is named once; the exit
 * status says something was missing, as GNU ls's does. */
static int
ls_fill_nosize(struct ls_ent *e)
{
	static int said;
	const char *who = pvfs_error_detail();
	char why[256];
	int err = errno;

	snprintf(why, sizeof(why), "%s%s%s%s", strerror(err),
	    who != NULL ? " (" : "", who != NULL ? who : "",
	    who != NULL ? ")" : "");
	if (pvfs_stat_meta(e->path, &e->st, 1) != 0 ||
	    !S_ISREG(e->st.st_mode)) {
		errno = err;
		return -1;
	}
	e->nosize = 1;
	if (!said)
		tool_errmsg(e->path, "size unknown: %s", why);
	said = 1;
	tool_status = TOOL_EXIT_FAIL;
	return 0;
}

/* Entries are lstat'ed; an operand is followed when it is a link to a
 * directory, unless -l, -d or -F (GNU ls's default).  Only -l, -t and -S
 * need what a regular file's iods hold (size, mtime, blocks); without
 * them the mgr's attributes do, and the listing works with an iod down. */
static int
ls_fill(struct ls_ent *e, int operand)
{
	int sizes = opt_format == FMT_LONG || opt_sort != SORT_NAME;
	struct stat st;

	e->target = NULL;
	e->tok = 0;
	e->nosize = 0;
	if (!sizes) {
		if (pvfs_stat_meta(e->path, &e->st, 1) != 0)
			return -1;
	} else if (pvfs_lstat(e->path, &e->st) != 0 && ls_fill_nosize(e) != 0)
		return -1;
	if (S_ISLNK(e->st.st_mode) && operand && opt_format != FMT_LONG &&
	    !opt_dir && !opt_classify && pvfs_stat(e->path, &st) == 0 &&
	    S_ISDIR(st.st_mode))
		e->st = st;
	if (S_ISLNK(e->st.st_mode) && ls_fill_link(e) != 0)
		return -1;
	memset(&e->dist, 0, sizeof(e->dist));
	if (opt_dist && S_ISREG(e->st.st_mode) &&
	    pvfs_admin_attr(e->path, &e->dist) != 0)
		return -1;
	return 0;
}

/* ---- a listing: long lines, one per line, columns ---- */

static int
ls_digits(unsigned long long v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static void
ls_widths(const struct ls_ent *v, size_t n, struct ls_width *w)
{
	char buf[32];
	size_t i;
	int l;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < n; i++) {
		if ((l = ls_digits(v[i].st.st_ino)) > w->inode)
			w->inode = l;
		if (opt_format != FMT_LONG)
			continue;
		if ((l = ls_digits(v[i].st.st_nlink)) > w->links)
			w->links = l;
		if ((l = (int)strlen(ls_id(0, v[i].st.st_uid, buf, sizeof(buf)))) > w->owner)
			w->owner = l;
		if ((l = (int)strlen(ls_id(1, v[i].st.st_gid, buf, sizeof(buf)))) > w->group)
			w->group = l;
		if ((l = (int)strlen(ls_size(&v[i], buf, sizeof(buf)))) > w->size)
			w->size = l;
	}
}

/* What -l prints before the name (and the --dist columns). */
static int
ls_long_prefix(const struct ls_ent *e, const struct ls_width *w, char *out,
    size_t len)
{
	char mode[11], ino[32], ob[32], gb[32], sb[32], tb[64];

	ls_mode(e->st.st_mode, mode);
	ls_time(e->st.st_mtime, tb, sizeof(tb));
	ino[0] = '\0';
	if (opt_inode)
		snprintf(ino, sizeof(ino), "%*llu ", w->inode,
		    (unsigned long long)e->st.st_ino);
	return snprintf(out, len, "%s%s %*lu %-*s %-*s %*s %s ", ino, mode,
	    w->links, (unsigned long)e->st.st_nlink, w->owner,
	    ls_id(0, e->st.st_uid, ob, sizeof(ob)), w->group,
	    ls_id(1, e->st.st_gid, gb, sizeof(gb)), w->size,
	    ls_size(e, sb, sizeof(sb)), tb);
}

static void
ls_print_line(const struct ls_ent *e, const struct ls_width *w)
{
	char pre[512];

	if (opt_format == FMT_LONG) {
		ls_long_prefix(e, w, pre, sizeof(pre));
		fputs(pre, stdout);
	}
	if (opt_dist && S_ISREG(e->st.st_mode))
		printf("%4u %6u %9u ", e->dist.base, e->dist.pcount, e->dist.ssize);
	else if (opt_dist)
		printf("%4s %6s %9s ", "-", "-", "-");
	ls_put_name(e, w);
	putchar('\n');
}

/* -l --dist: name the distribution columns above them. */
static void
ls_dist_header(const struct ls_ent *v, size_t n, const struct ls_width *w)
{
	char pre[512];
	int len;

	if (n == 0)
		return;
	len = ls_long_prefix(&v[0], w, pre, sizeof(pre));
	printf("%*s%4s %6s %9s\n", len, "", "base", "pcount", "ssize");
}

/* Pad from column from to column to, with tabs where they fit (GNU ls). */
static void
ls_indent(size_t from, size_t to)
{
	while (from < to) {
		if (tab_size != 0 && to / tab_size > (from + 1) / tab_size) {
			putchar('\t');
			from += tab_size - from % tab_size;
		} else {
			putchar(' ');
			from++;
		}
	}
}

/* Do n names of widths len fit in cols columns?  GNU ls's measure: each
 * column at least 3 wide, all but the last with 2 spaces after the widest
 * name, the sum under the line width.  The column widths go to colw. */
static int
ls_cols_fit(const size_t *len, size_t n, size_t cols, size_t *colw)
{
	size_t rows = (n + cols - 1) / cols, i, c, l, sum = cols * 3;

	for (c = 0; c < cols; c++)
		colw[c] = 3;
	for (i = 0; i < n; i++) {
		c = i / rows;
		l = len[i] + (c == cols - 1 ? 0 : 2);
		if (l > colw[c]) {
			sum += l - colw[c];
			colw[c] = l;
			if (sum >= line_width)
				return 0;
		}
	}
	return 1;
}

static void
ls_print_cols(const struct ls_ent *v, size_t n, const struct ls_width *w)
{
	size_t *len, *colw, maxc, cols, rows, r, c, i, pos;

	if (line_width == 0) {	/* -w 0: one line, two spaces apart */
		for (i = 0; i < n; i++) {
			fputs(i > 0 ? "  " : "", stdout);
			ls_put_name(&v[i], w);
		}
		putchar('\n');
		return;
	}
	len = tool_xmalloc(n * sizeof(*len));
	for (i = 0; i < n; i++)
		len[i] = ls_name_width(&v[i], w);
	maxc = line_width / 3 + (line_width % 3 != 0);
	if (maxc > n)
		maxc = n;
	colw = tool_xmalloc((maxc + 1) * sizeof(*colw));
	for (cols = maxc; cols > 1; cols--)
		if (ls_cols_fit(len, n, cols, colw))
			break;
	rows = (n + cols - 1) / cols;
	for (r = 0; r < rows; r++) {
		pos = 0;
		for (c = 0, i = r; i < n; c++, i += rows) {
			ls_put_name(&v[i], w);
			if (i + rows >= n)
				break;
			ls_indent(pos + len[i], pos + colw[c]);
			pos += colw[c];
		}
		putchar('\n');
	}
	free(len);
	free(colw);
}

static void
ls_print(const struct ls_ent *v, size_t n, int total)
{
	struct ls_width w;
	unsigned long long blocks = 0;
	char buf[32];
	size_t i;

	ls_widths(v, n, &w);
	for (i = 0; total && opt_format == FMT_LONG && i < n; i++)
		blocks += (unsigned long long)v[i].st.st_blocks;
	if (total && opt_format == FMT_LONG)
		printf("total %s\n", opt_human ? ls_human(blocks * 512, buf,
		    sizeof(buf)) : (snprintf(buf, sizeof(buf), "%llu",
		    (blocks + 1) / 2), buf));
	if (opt_format == FMT_LONG && opt_dist)
		ls_dist_header(v, n, &w);
	if (opt_format == FMT_COLS && !opt_dist && n > 0) {
		ls_print_cols(v, n, &w);
		return;
	}
	for (i = 0; i < n; i++)
		ls_print_line(&v[i], &w);
}

/* ---- sorting ---- */

static int
ls_cmp(const void *pa, const void *pb)
{
	const struct ls_ent *a = pa, *b = pb;
	int d = 0;

	if (opt_sort == SORT_TIME) {
		if (a->st.st_mtim.tv_sec != b->st.st_mtim.tv_sec)
			d = a->st.st_mtim.tv_sec < b->st.st_mtim.tv_sec ? 1 : -1;
		else if (a->st.st_mtim.tv_nsec != b->st.st_mtim.tv_nsec)
			d = a->st.st_mtim.tv_nsec < b->st.st_mtim.tv_nsec ? 1 : -1;
	} else if (opt_sort == SORT_SIZE && a->st.st_size != b->st.st_size)
		d = a->st.st_size < b->st.st_size ? 1 : -1;
	if (d == 0)
		d = strcoll(a->name, b->name);
	return opt_rev ? -d : d;
}

static void
ls_sort(struct ls_ent *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), ls_cmp);
}

/* ---- directories and operands ---- */

static void
ls_free(struct ls_ent *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].path);
		free(v[i].target);
	}
	free(v);
}

/* The entries of directory path as ls shows them (dot rules applied). */
static struct ls_ent *
ls_read_dir(const char *path, size_t *count)
{
	struct ls_ent *v;
	char **names;
	size_t n, i, k = 0;

	if (tool_list_dir(path, &names, &n) != 0) {
		tool_err(path, errno);
		return NULL;
	}
	v = tool_xmalloc((n + 2) * sizeof(*v));
	for (i = 0; opt_dots == DOTS_ALL && i < 2; i++) {
		v[k].name = strdup(i == 0 ? "." : "..");
		v[k++].path = tool_join(path, i == 0 ? "." : "..");
	}
	for (i = 0; i < n; i++) {
		if (names[i][0] == '.' && opt_dots == DOTS_HIDE)
			continue;
		v[k].name = strdup(names[i]);
		v[k++].path = tool_join(path, names[i]);
	}
	tool_free_list(names, n);
	for (i = 0; i < k; i++)
		if (ls_fill(&v[i], 0) != 0) {
			tool_err(v[i].path, errno);
			memset(&v[i].st, 0, sizeof(v[i].st));
		}
	ls_sort(v, k);
	*count = k;
	return v;
}

static void
ls_dir(const char *path, int header, int first)
{
	struct ls_ent *v;
	size_t n, i;

	if ((v = ls_read_dir(path, &n)) == NULL)
		return;
	if (header)
		printf("%s%s:\n", first ? "" : "\n", path);
	ls_print(v, n, 1);
	for (i = 0; opt_rec && i < n; i++)
		if (S_ISDIR(v[i].st.st_mode) && strcmp(v[i].name, ".") != 0 &&
		    strcmp(v[i].name, "..") != 0)
			ls_dir(v[i].path, 1, 0);
	ls_free(v, n);
}

/* Operands: files (and, with -d, directories) first, then directories. */
static void
ls_operands(char **paths, int n)
{
	struct ls_ent *files = tool_xmalloc((size_t)n * sizeof(*files));
	struct ls_ent *dirs = tool_xmalloc((size_t)n * sizeof(*dirs));
	size_t nf = 0, nd = 0, i;
	struct ls_ent e;
	int k;

	for (k = 0; k < n; k++) {
		if (!tool_need_pvfs(paths[k]))
			continue;
		e.name = strdup(paths[k]);
		e.path = strdup(paths[k]);
		if (ls_fill(&e, 1) != 0) {
			tool_err(paths[k], errno);
			free(e.name);
			free(e.path);
			free(e.target);
		} else if (S_ISDIR(e.st.st_mode) && !opt_dir)
			dirs[nd++] = e;
		else
			files[nf++] = e;
	}
	ls_sort(files, nf);
	ls_sort(dirs, nd);
	ls_print(files, nf, 0);
	for (i = 0; i < nd; i++)
		ls_dir(dirs[i].path, n > 1 || opt_rec, nf == 0 && i == 0);
	ls_free(files, nf);
	ls_free(dirs, nd);
}

/* ---- options ---- */

/* For columns only, as GNU ls: COLUMNS, then the terminal's width (both
 * unless -w gave one), and TABSIZE; bad values are warnings. */
static void
ls_line_width(int width_set)
{
	const char *p = getenv("COLUMNS");
	struct winsize ws;
	char *end;
	long v;

	if (!width_set && p != NULL && *p != '\0') {
		v = strtol(p, &end, 10);
		if (*end == '\0' && v > 0)
			line_width = (size_t)v;
		else
			fprintf(stderr, "%s: ignoring invalid width in "
			    "environment variable COLUMNS: '%s'\n", tool_prog, p);
	}
	if (!width_set && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_col > 0)
		line_width = ws.ws_col;
	if ((p = getenv("TABSIZE")) != NULL) {
		v = strtol(p, &end, 10);
		if (*p != '\0' && *end == '\0' && v >= 0)
			tab_size = (size_t)v;
		else
			fprintf(stderr, "%s: ignoring invalid tab size in "
			    "environment variable TABSIZE: '%s'\n", tool_prog, p);
	}
}

static void
ls_options(int argc, char **argv)
{
	const char *color = "never";
	int c, width_set = 0;

	opt_format = isatty(STDOUT_FILENO) ? FMT_COLS : FMT_ONE;
	while ((c = tool_getopt(argc, argv, "aAlnhiRdtSr1Cw:F", longopts)) != -1) {
		switch (c) {
		case 'a': opt_dots = DOTS_ALL; break;
		case 'A': opt_dots = DOTS_ALMOST; break;
		case 'l': opt_format = FMT_LONG; break;
		case 'n': opt_format = FMT_LONG; opt_numeric = 1; break;
		case 'h': opt_human = 1; break;
		case 'i': opt_inode = 1; break;
		case 'R': opt_rec = 1; break;
		case 'd': opt_dir = 1; break;
		case 't': opt_sort = SORT_TIME; break;
		case 'S': opt_sort = SORT_SIZE; break;
		case 'r': opt_rev = 1; break;
		case '1':	/* as in GNU ls, -1 does not undo -l */
			if (opt_format != FMT_LONG)
				opt_format = FMT_ONE;
			break;
		case 'C': opt_format = FMT_COLS; break;
		case 'F': opt_classify = 1; break;
		case 'w':
			line_width = (size_t)tool_parse_long(optarg, 0, 1L << 30,
			    "line width");
			width_set = 1;
			break;
		case OPT_COLOR: color = optarg; break;
		case OPT_DIST: opt_dist = 1; break;
		default: tool_usage_error("invalid option");
		}
	}
	if (opt_format == FMT_COLS && !opt_dist)
		ls_line_width(width_set);
	opt_color = ls_color_when(color);
	if (opt_color) {
		ls_parse_colors();
		tab_size = 0;  /* as GNU ls: no tabs among color codes */
	}
}

int
main(int argc, char **argv)
{
	char **tab;
	int n;

	setlocale(LC_COLLATE, "");
	setlocale(LC_CTYPE, "");
	tool_init("pvfs-ls", usage);
	ls_options(argc, argv);
	if (optind < argc) {
		ls_operands(argv + optind, argc - optind);
		return tool_status;
	}
	if ((n = tool_tab_prefixes(&tab)) < 0)
		return TOOL_EXIT_FAIL;
	if (n == 0) {
		tool_errmsg(NULL, "no file system in the pvfstab");
		return TOOL_EXIT_FAIL;
	}
	ls_operands(tab, 1);
	tool_free_list(tab, (size_t)n);
	return tool_status;
}
