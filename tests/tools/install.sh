#!/bin/sh
# install.sh - make install into a staging root (DESTDIR): the systemd
# units name the configured programs and files, nothing is left of the
# templates' placeholders, root-only programs are in sbin, every installed
# program has a man page, and a program built only from pvfs.h and
# pkg-config's pvfs.pc runs against a file system.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
R=$T/root

# make's own variables, as the build sees them.
mkvar() {
	printf 'print:\n\t@echo $(%s)\n' "$1" >"$T/print.mk"
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -s --no-print-directory -C "$B" -f Makefile -f "$T/print.mk" print
}
sbindir=$(mkvar sbindir) bindir=$(mkvar bindir) libdir=$(mkvar libdir)
sysconfdir=$(mkvar sysconfdir) localstatedir=$(mkvar localstatedir)
unitdir=$(mkvar systemdsystemunitdir) mandir=$(mkvar mandir)
includedir=$(mkvar includedir) sysusersdir=$(mkvar sysusersdir)
preloaddir=$(mkvar preloaddir)

check "make install DESTDIR" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	make -C "$B" install DESTDIR="$R"

for p in pvfs-mgr pvfs-iod pvfs-fsck pvfs-genconfig; do
	check "$p in sbin" test -x "$R$sbindir/$p"
	check "$p not in bin" test ! -e "$R$bindir/$p"
done
for u in pvfs-mgr.service pvfs-iod.service pvfs-iod@.service; do
	check "$u installed" test -s "$R$unitdir/$u"
	check_out "$u: no placeholder left" "0" sh -c "grep -c '@[a-z_]*@' '$R$unitdir/$u'; true"
	check "$u: runs as pvfs" grep -qx "User=pvfs" "$R$unitdir/$u"
done
check_out "pvfs-mgr.service: the configured program, the key always given" \
	"ExecStart=$sbindir/pvfs-mgr -f \$PVFS_MGR_ARGS" grep '^ExecStart=' "$R$unitdir/pvfs-mgr.service"
check "pvfs-mgr.service: the default names the key" grep -q \
	"^Environment=\"PVFS_MGR_ARGS=-d $localstatedir/lib/pvfs/meta -k $sysconfdir/pvfs/secret\"\$" \
	"$R$unitdir/pvfs-mgr.service"
check "pvfs-iod@.service: the instance's defaults file" grep -qx \
	"EnvironmentFile=$sysconfdir/pvfs/iod-%i.conf" "$R$unitdir/pvfs-iod@.service"
check_out "pvfs-iod@.service: the configured program" \
	"ExecStart=$sbindir/pvfs-iod -f \$PVFS_IOD_ARGS" grep '^ExecStart=' "$R$unitdir/pvfs-iod@.service"
check "the preload library in its directory" test -f "$R$preloaddir/libpvfs-preload.so"
check "pvfs-local: looks there" grep -q "^PRELOADDIR=\"$preloaddir\"\$" "$R$bindir/pvfs-local"
check "pvfs-iod@.service: reload is SIGHUP" grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' \
	"$R$unitdir/pvfs-iod@.service"
# systemd's own check of the units, pointed at the staged programs and a
# defaults file for instance 0 of the template.
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir -p "$T/units" "$T/etc"
	for u in pvfs-mgr.service pvfs-iod.service pvfs-iod@.service; do
		sed -e "s|$sbindir/|$R$sbindir/|" -e "s|$sysconfdir/pvfs/|$T/etc/|" \
			"$R$unitdir/$u" >"$T/units/$u"
	done
	mv "$T/units/pvfs-iod@.service" "$T/units/pvfs-iod@0.service"
	echo 'PVFS_IOD_ARGS="-d /nonexistent"' >"$T/etc/iod-0.conf"
	check_out "systemd-analyze verify: the units are clean" "" sh -c \
		"systemd-analyze verify --man=no '$T/units/pvfs-mgr.service' \
		'$T/units/pvfs-iod.service' '$T/units/pvfs-iod@0.service' 2>&1"
fi
check "sysusers.d: the pvfs user" grep -q '^u pvfs ' "$R$sysusersdir/pvfs.conf"

# Every program has its page, in section 1 (bin) or 8 (sbin).
for f in "$R$bindir"/* "$R$sbindir"/*; do
	p=$(basename "$f")
	case $f in "$R$bindir"/*) s=1 ;; *) s=8 ;; esac
	check "man page $p($s)" test -s "$R$mandir/man$s/$p.$s"
done
for m in man3/pvfs.3 man5/pvfstab.5 man5/iodtab.5 man7/libpvfs-preload.7; do
	check "man page $m" test -s "$R$mandir/$m"
done
if command -v groff >/dev/null 2>&1; then
	for m in "$R$mandir"/man*/*; do
		check_out "$(basename "$m"): groff has no warning" "" \
			sh -c "LC_ALL=C.UTF-8 groff -man -ww -z '$m' 2>&1"
	done
fi

# pvfs.h alone, strict C and C++, and pvfs.pc.
PC="env PKG_CONFIG_PATH=$R$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$R pkg-config"
check "pvfs.pc: pkg-config knows pvfs" $PC --exists pvfs
check_out "pvfs.pc: the version" "$(sed -n 's/^#define PVFS_VERSION_STRING "\(.*\)"/\1/p' \
	"${PVFS_SRCDIR:-.}/include/pvfs.h")" $PC --modversion pvfs
cat >"$T/prog.c" <<'EOF'
#include <pvfs.h>

int
main(int argc, char **argv)
{
	static const char msg[] = "written through pvfs.pc\n";
	struct stat st;
	int fd;

	if (argc != 2)
		return 2;
	if ((fd = pvfs_open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644)) < 0)
		return 1;
	if (pvfs_write(fd, msg, sizeof msg - 1) != (ssize_t)(sizeof msg - 1))
		return 1;
	if (pvfs_close(fd) != 0 || pvfs_stat(argv[1], &st) != 0)
		return 1;
	return st.st_size == (off_t)(sizeof msg - 1) ? 0 : 1;
}
EOF
# (In a sanitizer build the installed library is instrumented: the
# program links the sanitizers' runtime too, SAN_LDFLAGS.)
check "pvfs.h: a program including only it builds, -std=c99 -pedantic -Werror" \
	sh -c "cc -std=c99 -pedantic -Wall -Wextra -Werror \$($PC --cflags pvfs) \
	-o '$T/prog' '$T/prog.c' \$($PC --libs pvfs) ${SAN_LDFLAGS:-}"
printf '#include <pvfs.h>\n' >"$T/only.c"
check "pvfs.h alone: C, -Wall -Wextra -Werror" cc -std=c99 -Wall -Wextra -Werror \
	-I"$R$includedir" -c -o "$T/only.o" "$T/only.c"
if command -v c++ >/dev/null 2>&1; then
	check "pvfs.h alone: C++" c++ -Wall -Wextra -Werror -I"$R$includedir" -x c++ \
		-c -o "$T/only.o" "$T/only.c"
fi
start_cluster 2
check "the program runs on the installed library" env LD_LIBRARY_PATH="$R$libdir" \
	"$T/prog" /pvfs/via-pc
check_out "its file reads back" "written through pvfs.pc" pvfs-cp /pvfs/via-pc -
finish
