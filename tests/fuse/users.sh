#!/bin/sh
# users.sh - who a request through the mount acts for: the calling
# process, not the mount's owner (doc/security.md).  Root mounts with
# allow_other; uid 65534 is refused a root-owned 0600 file that root
# reads, makes files that are its own (seen natively), cannot chown them
# away or set another's distribution.  With default_permissions the
# kernel checks first and says the same.  Mounted by uid 65534, requests
# are its own.  Root only (77 otherwise).
. "${PVFS_SRCDIR:-.}/tests/fuse/lib.sh"
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (mounts with allow_other and runs as uid 65534)"
	exit 77
fi
start_cluster
M=$T/mnt
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

for opts in allow_other allow_other,default_permissions; do
	check "mount -o $opts" fz_mount "$M" -o "$opts"
	echo secret >"$M/s"
	chmod 600 "$M/s"
	mkdir -p "$M/pub"
	chmod 1777 "$M/pub"
	check_out "$opts: root reads its 0600 file" "secret" cat "$M/s"
	check_err "$opts: uid 65534 gets EACCES" 1 "Permission denied" nobody cat "$M/s"
	check_err "$opts: nor may it write it" 2 "Permission denied" nobody sh -c "echo x >'$M/s'"
	check "$opts: uid 65534 makes a file" nobody sh -c "echo mine >'$M/pub/n'"
	check_grep "$opts: natively, it is uid 65534's" "Uid: 65534 .*Gid: 65534 " pvfs-stat /pvfs/pub/n
	check_out "$opts: and it reads it" "mine" nobody cat "$M/pub/n"
	check_err "$opts: chown to root: EPERM" 1 "Operation not permitted" nobody chown 0 "$M/pub/n"
	check "$opts: chmod of its own file" nobody chmod 600 "$M/pub/n"
	: >"$M/pub/e"
	check_err "$opts: root's file in a sticky dir: no unlink" 1 "not permitted" \
		nobody rm -f "$M/pub/e"
	# The kernel checks write permission first with default_permissions.
	case $opts in *default_permissions*) why="Permission denied" ;; *) why="not permitted" ;; esac
	check_err "$opts: another's distribution: refused" 1 "$why" nobody /usr/bin/python3 -c \
		"import os; os.setxattr('$M/pub/e', 'user.pvfs.pcount', b'1')"
	check "$opts: mkdir as uid 65534" nobody mkdir "$M/pub/d"
	check_grep "$opts: natively its own" "Uid: 65534 " pvfs-stat /pvfs/pub/d
	check "unmount" fz_umount "$M"
	pvfs-rm -r /pvfs/pub /pvfs/s >/dev/null 2>&1
done

# Mounted by a user, every request is that user's.
pvfs-mkdir /pvfs/pub && pvfs-chmod 1777 /pvfs/pub
mkdir "$T/um"
chown 65534:65534 "$T/um"
FZ_MOUNTS="$FZ_MOUNTS $T/um"
if ! nobody sh -c 'test -r /dev/fuse && test -w /dev/fuse' ||
    ! test -u "$(command -v fusermount3)"; then
	echo "# skipped: users cannot mount here (/dev/fuse $(stat -c %A /dev/fuse), fusermount3 not setuid?)"
elif nobody "$B/pvfs-fuse" "$T/um" >"$T/out" 2>&1; then
	ok "uid 65534 mounts"
	check "its mount: a file" nobody sh -c "echo u >'$T/um/pub/x'"
	check_grep "natively uid 65534's" "Uid: 65534 " pvfs-stat /pvfs/pub/x
	check_err "root may not enter it (no allow_other)" 1 "Permission denied" ls "$T/um"
	check "uid 65534 unmounts" nobody fusermount3 -u "$T/um"
else
	not_ok "uid 65534 mounts"
fi
finish
