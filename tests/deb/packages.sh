#!/bin/sh
# packages.sh - the Debian packages (make check-deb; about two minutes, so
# not part of make check): scripts/deb.sh builds them with
# dpkg-buildpackage and lintian finds no error; each package holds what
# it should and nothing of the others' (dpkg -c); then, unpacked into a
# staging root (dpkg -x), pvfs-genconfig writes a configuration, the
# packaged daemons run from it with the packaged units' command lines, the
# packaged tools copy a file in and out, and a program built against
# libpvfs-dev through pvfs.pc runs on libpvfs1.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
S=${PVFS_SRCDIR:-.}
D=$T/debs
R=$T/root
PIDS=""
deb_cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	lib_cleanup
}
trap deb_cleanup EXIT

check "scripts/deb.sh: built, lintian without errors" sh "$S/scripts/deb.sh" "$D"
if [ "$FAIL" -ne 0 ]; then
	tail -n 30 "$D/build.log"
	finish
fi
grep -E '^(E|W): ' "$D/lintian.txt" | sed 's/^/# lintian: /'
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
version=$(dpkg-parsechangelog -l "$S/debian/changelog" -S Version)

# files PKG: its regular files and links, one path a line, sorted.
files() {
	dpkg -c "$D/${1}_${version}_$arch.deb" | awk '$1 !~ /^d/ {print $6}' |
		sed 's|^\./|/|' | grep -v '^/usr/share/doc/' | sort
}
check_out "pvfs-mgr: its files" "/lib/systemd/system/pvfs-mgr.service
/usr/sbin/pvfs-genconfig
/usr/sbin/pvfs-mgr
/usr/sbin/pvfs-resync
/usr/share/man/man5/iodtab.5.gz
/usr/share/man/man8/pvfs-genconfig.8.gz
/usr/share/man/man8/pvfs-mgr.8.gz
/usr/share/man/man8/pvfs-resync.8.gz" files pvfs-mgr
check_out "pvfs-iod: its files, the template unit among them" "/lib/systemd/system/pvfs-iod.service
/lib/systemd/system/pvfs-iod@.service
/usr/sbin/pvfs-iod
/usr/share/man/man8/pvfs-iod.8.gz" files pvfs-iod
check_out "libpvfs1: the shared library" "/usr/lib/$ma/libpvfs.so.1
/usr/lib/$ma/libpvfs.so.1.0.0" files libpvfs1
check_out "libpvfs-dev: header, static library, pvfs.pc, pvfs(3)" "/usr/include/pvfs.h
/usr/lib/$ma/libpvfs.a
/usr/lib/$ma/libpvfs.so
/usr/lib/$ma/pkgconfig/pvfs.pc
/usr/share/man/man3/pvfs.3.gz" files libpvfs-dev
files pvfs-client >"$T/client"
for t in ls cp rm mkdir rmdir mv stat ping df chmod chown truncate du counters bench local; do
	check "pvfs-client: pvfs-$t and its page" sh -c \
		"grep -qx /usr/bin/pvfs-$t '$T/client' && grep -qx /usr/share/man/man1/pvfs-$t.1.gz '$T/client'"
done
for f in /usr/sbin/pvfs-fsck /usr/share/man/man8/pvfs-fsck.8.gz \
	/usr/lib/$ma/pvfs/libpvfs-preload.so /usr/share/man/man7/libpvfs-preload.7.gz \
	/usr/share/man/man5/pvfstab.5.gz; do
	check "pvfs-client: $f" grep -qx "$f" "$T/client"
done
check_out "pvfs-client: nothing else (16 tools, their pages, 5 more)" "37" sh -c "wc -l <'$T/client'"
check_out "pvfs-fuse: the client, the mount helper, their pages" "/usr/bin/pvfs-fuse
/usr/sbin/mount.fuse.pvfs
/usr/share/man/man1/pvfs-fuse.1.gz
/usr/share/man/man8/mount.fuse.pvfs.8.gz" files pvfs-fuse
for p in pvfs-mgr pvfs-iod; do
	dpkg-deb -e "$D/${p}_${version}_$arch.deb" "$T/ctl-$p"
	check "$p: postinst makes the pvfs user" grep -q "adduser --system --group" "$T/ctl-$p/postinst"
	check "$p: depends on adduser" sh -c "dpkg-deb -f '$D/${p}_${version}_$arch.deb' Depends | grep -q adduser"
	# dh_installsystemd --no-enable --no-start: enabled again only if it was.
	check "$p: the unit is neither started nor enabled at install" sh -c \
		"! grep -q deb-systemd-invoke '$T/ctl-$p/postinst' && grep -q was-enabled '$T/ctl-$p/postinst'"
done
check "pvfs-mgr: /etc/pvfs" sh -c "dpkg -c '$D/pvfs-mgr_${version}_$arch.deb' | grep -q ' \./etc/pvfs/\$'"

# ---- unpacked into a staging root ----
for p in pvfs-mgr pvfs-iod pvfs-client libpvfs1 libpvfs-dev; do
	dpkg -x "$D/${p}_${version}_$arch.deb" "$R"
done
set -- $(python3 -c '
import socket
s = [socket.socket() for _ in range(3)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
MP=$1 P0=$2 P1=$3
G=$T/etc
check "staged pvfs-genconfig: writes a configuration" "$R/usr/sbin/pvfs-genconfig" \
	--confdir "$G" --meta-dir "$T/meta" --data-dir "$T/data-%i" --auth trust \
	--mgr "127.0.0.1:$MP" --iod "127.0.0.1:$P0" --iod "127.0.0.1:$P1"
fsid=$(sed -n 's/.*--fsid \([0-9a-f]*\).*/\1/p' "$G/mgr.conf")
mkdir -p "$T/run"
# unit_cmd UNIT VARFILE: the staged unit's ExecStart, run from the root.
unit_cmd() {
	echo "$R$(unit_line "$R/lib/systemd/system/$1" "$2")"
}
for i in 0 1; do
	mkdir -p "$T/data-$i"
	check "staged pvfs-iod: label $i" "$R/usr/sbin/pvfs-iod" --format --fsid "$fsid" \
		--index $i -d "$T/data-$i"
	$(unit_cmd pvfs-iod@.service "$G/iod-$i.conf") --port-file "$T/run/iod$i.port" \
		>"$T/run/iod$i.log" 2>&1 &
	PIDS="$PIDS $!"
done
wait_port staged iod0
wait_port staged iod1
$(unit_cmd pvfs-mgr.service "$G/mgr.conf") --port-file "$T/run/mgr.port" \
	>"$T/run/mgr.log" 2>&1 &
PIDS="$PIDS $!"
wait_port staged mgr
PVFSTAB_FILE=$G/pvfstab
export PVFSTAB_FILE
check "staged pvfs-ping: all well" "$R/usr/bin/pvfs-ping"
mkrand "$T/in" 2000000
check "staged pvfs-cp: in" "$R/usr/bin/pvfs-cp" "$T/in" /pvfs/in
check "staged pvfs-cp: out" "$R/usr/bin/pvfs-cp" /pvfs/in "$T/back"
same "staged: the same bytes" "$T/in" "$T/back"

PC="env PKG_CONFIG_PATH=$R/usr/lib/$ma/pkgconfig PKG_CONFIG_SYSROOT_DIR=$R pkg-config"
cat >"$T/prog.c" <<'EOF'
#include <pvfs.h>

int
main(void)
{
	struct stat st;

	return pvfs_stat("/pvfs/in", &st) == 0 && st.st_size == 2000000 ? 0 : 1;
}
EOF
check "libpvfs-dev: a program builds with pvfs.pc" sh -c "cc -Wall -Werror \
	\$($PC --cflags pvfs) -o '$T/prog' '$T/prog.c' \$($PC --libs pvfs)"
check "libpvfs1: it runs" env LD_LIBRARY_PATH="$R/usr/lib/$ma" "$T/prog"
check "libpvfs-dev: a static build runs" sh -c "cc -Wall -Werror -static-libgcc \
	\$($PC --cflags pvfs) -o '$T/prog-static' '$T/prog.c' '$R/usr/lib/$ma/libpvfs.a' \
	\$($PC --static --libs-only-l pvfs | sed 's/-lpvfs//') && '$T/prog-static'"
if [ "$FAIL" -ne 0 ]; then
	for f in "$T"/run/*.log; do echo "# --- $f"; tail -n 10 "$f"; done
fi
finish
