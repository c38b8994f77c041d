#!/bin/sh
# static-link.sh - a program that links libpvfs.a statically and defines
# names our internals once used (fatal, log_warn, io_read, conn_close) must
# link, and every global name in the archive must start with pvfs_ (the
# internals are prefixed; nothing post-processes the archive).
set -eu
b=${PVFS_BUILDDIR:-.}
s=${PVFS_SRCDIR:-.}
lib=$b/.libs/libpvfs.a
[ -f "$lib" ] || { echo "SKIP: no static library"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/user.c" <<'C'
#include <pvfs.h>
#include <stdio.h>
void fatal(const char *m) { puts(m); }
void log_warn(const char *m) { puts(m); }
int io_read(void) { return 1; }
int conn_close(void) { return 2; }
int main(void) { struct stat st; return pvfs_stat("/nonexistent", &st) == -1 ? 0 : 1; }
C
${CC:-cc} -I"$s/include" -o "$tmp/user" "$tmp/user.c" "$lib" -lpthread ${SAN_LDFLAGS:-}
PVFSTAB_FILE=/dev/null "$tmp/user"
# __odr_asan.*: the markers an ASan build adds beside each global (the
# compiler's names, not ours).
leaked=$(nm -g --defined-only "$lib" |
	awk 'NF == 3 && $3 !~ /^pvfs_/ && $3 !~ /^__odr_asan/ { print $3 }')
if [ -n "$leaked" ]; then
	echo "libpvfs.a exports internal names:"; echo "$leaked"; exit 1
fi
echo "1 passed, 0 failed"
