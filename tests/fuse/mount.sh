#!/bin/sh
# mount.sh - the FUSE client against a local directory: the same coreutils
# runs in both, and the trees must agree; bytes written through the mount
# read natively (pvfs-cp) and the other way round, exactly; writable shared
# mmap; O_DIRECT; fallocate; RENAME_NOREPLACE; the distribution xattrs;
# a second mount seeing the first one's writes; mount.fuse.pvfs (what
# "mount -t fuse.pvfs" runs); a stopped mgr gives errors within the
# timeout; a mgr and iod restart are survived; a killed pvfs-fuse gives
# ENOTCONN and a remount works; fusermount3 -u unmounts.
. "${PVFS_SRCDIR:-.}/tests/fuse/lib.sh"
start_cluster 4 --timeout 3
M=$T/mnt
L=$T/local
mkdir -p "$L"

check "mount" fz_mount "$M"
check_grep "/proc/mounts: fuse.pvfs, the source as its name" \
	"^/pvfs $M fuse.pvfs " cat /proc/mounts
check_grep "df shows the mount" "^/pvfs .* $M\$" df -P "$M"
check_out "df: the 1K-blocks pvfs-df gives" \
	"$(pvfs-df /pvfs | awk 'NR == 2 {print $2}')" \
	sh -c "df -P '$M' | awk 'NR == 2 {print \$2}'"
check_out "df -i: the inodes pvfs-df -i gives" \
	"$(pvfs-df -i /pvfs | awk 'NR == 2 {print $2}')" \
	sh -c "df -Pi '$M' | awk 'NR == 2 {print \$2}'"

# The same coreutils session in each tree.
mkrand "$T/rand" 3333333
# (A script of its own: set -e does not hold in a function run by check.)
cat >"$T/session.sh" <<'EOF'
cd "$1"
mkdir -p a/b/c
cp "$2" a/b/f
cat a/b/f a/b/f >a/twice
echo hello >a/h
printf 'x%.0s' $(seq 1 5000) >a/x
mv a/h a/b/c/h2
cp -r a/b a/copy
rm a/copy/f
rmdir a/copy/c 2>/dev/null || rm -r a/copy/c
chmod 640 a/twice
chmod 2750 a/b/c
truncate -s 100000 a/x
touch -d '2001-02-03 04:05:06.789' a/x
truncate -s 77 a/b/f
: >a/empty
EOF
session() {
	sh -e "$T/session.sh" "$1" "$T/rand"
}
check "session in the local tree" session "$L"
check "session through the mount" session "$M"
shape() {
	(cd "$1" && find . -type f -printf '%y %m %s %p\n' && find . -type d -printf '%y %m %p\n') |
		sort
}
shape "$L" >"$T/shape.local"
shape "$M" >"$T/shape.mount"
check "tree: same names, types, modes, sizes" diff "$T/shape.local" "$T/shape.mount"
for f in a/b/f a/twice a/b/c/h2 a/x a/empty; do
	check "cmp $f" cmp "$L/$f" "$M/$f"
done
check_out "touch -d: the mtime" "$(stat -c %Y "$L/a/x")" stat -c %Y "$M/a/x"
check_out "ls -l as locally (sizes, modes, names)" \
	"$(ls -l "$L/a" | awk 'NR > 1 && !/^d/ {print $1, $5, $NF}')" \
	sh -c "ls -l '$M/a' | awk 'NR > 1 && !/^d/ {print \$1, \$5, \$NF}'"
# Links and special files: the kernel follows links itself.
# (Every step checked: set -e does not hold inside check's if.)
links() {
	(cd "$1" &&
	ln -s b/f a/lf &&
	ln -s nowhere a/dangling &&
	ln -s /etc/hostname a/abs &&
	ln -s b a/ld &&
	mkfifo -m 640 a/fifo &&
	ln a/b/f a/hard &&
	ln a/lf a/hardlink &&
	chown -h 1:1 a/lf)
}
check "links and a FIFO in the local tree" links "$L"
check "links and a FIFO through the mount" links "$M"
lshape() {
	(cd "$1" && find a -printf '%y %m %n %U:%G %l %p\n' | sort)
}
check_out "find: types, modes, link counts, owners, link texts agree" "$(lshape "$L")" lshape "$M"
check "a hard link through the mount shares the data" cmp "$M/a/hard" "$L/a/b/f"
check_out "readlink through the mount" "b/f" readlink "$M/a/lf"
check "cat through a link" cmp "$M/a/lf" "$L/a/lf"
check "a directory through a link" test -d "$M/a/ld/c"
check "a link out of the tree resolves on this host" cmp "$M/a/abs" /etc/hostname
check_out "natively, the link is PVFS's" "b/f" sh -c "pvfs-ls -l /pvfs/a/lf | sed 's/.* -> //'"
check_out "a FIFO through the mount carries bytes" "through" sh -c \
	"(echo through >'$M/a/fifo' &) ; cat '$M/a/fifo'"
check_quiet "rm -r" rm -r "$M/a"
check_out "empty again" "" ls -A "$M"

# Bytes both ways: written through the mount, read natively, and back.
mkrand "$T/big" 12345679
check "cp 12 MiB into the mount" cp "$T/big" "$M/big"
check "read natively: the same bytes" sh -c "pvfs-cp /pvfs/big - | cmp - '$T/big'"
check_quiet "write natively" pvfs-cp "$T/big" /pvfs/native
check "read through the mount: the same bytes" cmp "$T/big" "$M/native"
check "dd O_DIRECT through the mount" dd if="$T/big" of="$M/direct" bs=1M oflag=direct status=none
check "O_DIRECT bytes, read natively" sh -c "pvfs-cp /pvfs/direct - | cmp - '$T/big'"
check "dd iflag=direct reads them back" sh -c "dd if='$M/direct' bs=1M iflag=direct status=none | cmp - '$T/big'"
# Direct I/O is the default (doc/fuse.md): a read through the mount
# leaves none of the file in the page cache; page_cache mode (below) does.
# One descriptor reads the file, then maps it and asks mincore (another
# open would drop the cached pages).
cached_after_read() {
	python3 -c "
import ctypes, mmap, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
fd = os.open(sys.argv[1], os.O_RDONLY)
n = os.fstat(fd).st_size
while os.read(fd, 1 << 20):
    pass
addr = libc.mmap(None, n, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
assert addr not in (None, ctypes.c_void_p(-1).value), os.strerror(ctypes.get_errno())
vec = (ctypes.c_ubyte * ((n + 4095) // 4096))()
assert libc.mincore(ctypes.c_void_p(addr), ctypes.c_size_t(n), vec) == 0
print(sum(v & 1 for v in vec))
" "$1"
}
check_out "direct I/O: a read leaves no page of the file cached" "0" \
	cached_after_read "$M/native"

# Direct I/O (the default): a file kept open reads another client's write
# at once, no stale pages.
mkrand "$T/coh1" 200000
mkrand "$T/coh2" 200000
check_quiet "write natively" pvfs-cp "$T/coh1" /pvfs/coh
check "an open file reads a later native write at once" python3 -c "
import os, subprocess
fd = os.open('$M/coh', os.O_RDONLY)
assert os.pread(fd, 200000, 0) == open('$T/coh1', 'rb').read()
subprocess.run(['pvfs-cp', '$T/coh2', '/pvfs/coh'], check=True)
assert os.pread(fd, 200000, 0) == open('$T/coh2', 'rb').read()
"
# pvfs-fuse reads ahead for a sequential reader (fuse-read.c): a write
# through the mount to the range it fetched must be read, not the fetch.
check "a write through the mount after a read-ahead is read" python3 -c "
import os, time
a = os.urandom(1 << 20); b = os.urandom(1 << 20); c = os.urandom(1 << 20)
with open('$M/ahead', 'wb') as f:
    f.write(a + b + b)
fd = os.open('$M/ahead', os.O_RDONLY)
assert os.pread(fd, 1 << 20, 0) == a
time.sleep(0.05)
wfd = os.open('$M/ahead', os.O_WRONLY)
os.pwrite(wfd, c, 1 << 20)
assert os.pread(fd, 1 << 20, 1 << 20) == c
assert os.pread(fd, 1 << 20, 2 << 20) == b
"

# Writable shared mmap through the kernel's page cache (also with direct
# I/O: FUSE_DIRECT_IO_ALLOW_MMAP, doc/fuse.md).
check "python mmap ACCESS_WRITE" python3 -c "
import mmap
p = '$M/mm'
with open(p, 'wb') as f:
    f.write(b'\\0' * 300000)
with open(p, 'r+b') as f:
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_WRITE)
    m[0:5] = b'hello'
    m[299990:300000] = b'0123456789'
    m.flush()
    m.close()
"
check_out "mmap's writes, read natively" "hello 0123456789" sh -c \
	"pvfs-cp /pvfs/mm - | python3 -c 'import sys; d = sys.stdin.buffer.read(); print(d[:5].decode(), d[-10:].decode(), end=\"\")'"

echo one >"$M/r1"
echo two >"$M/r2"
# Programs the preload shim cannot serve: sqlite in WAL mode (its -shm
# file is a shared writable mapping), a static binary, and a glob from a
# plain shell.
check_out "sqlite3 WAL: journal_mode" "wal" sqlite3 "$M/db" "PRAGMA journal_mode=WAL;"
check "sqlite3 WAL: 500 rows in a transaction" sqlite3 "$M/db" \
	"CREATE TABLE t(x); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 500) INSERT INTO t SELECT i FROM c;"
check_out "sqlite3 WAL: still WAL for a new connection" "wal" sqlite3 "$M/db" "PRAGMA journal_mode;"
check_out "sqlite3 WAL: read back (sum), integrity ok" "125250
ok" sqlite3 "$M/db" "SELECT sum(x) FROM t; PRAGMA integrity_check;"
if command -v busybox >/dev/null 2>&1 && ! ldd "$(command -v busybox)" >/dev/null 2>&1; then
	check_out "a static busybox reads the mount" "one" busybox cat "$M/r1"
else
	echo "# skipped: no static busybox (apt-get install busybox-static)"
fi
check_out "a glob from a plain shell" "$M/r1 $M/r2" sh -c "echo '$M'/r?"
check "tar c of a tree through the mount" sh -c "mkdir -p '$M/t/u' && cp '$T/rand' '$M/t/u/f' && tar -C '$M' -cf '$T/t.tar' t"
check "tar x into the mount and back" sh -c "mkdir '$M/tx' && tar -C '$M/tx' -xf '$T/t.tar' && cmp '$T/rand' '$M/tx/t/u/f'"

# fallocate mode 0 grows the file; others are refused.
check "fallocate -l" fallocate -l 1000000 "$M/fa"
check_out "fallocate: the size" "1000000" stat -c %s "$M/fa"
check_err "fallocate --punch-hole: EOPNOTSUPP" 1 "supported" \
	fallocate --punch-hole -o 0 -l 4096 "$M/fa"

# rename(2) with RENAME_NOREPLACE.
renameat2() {
	python3 -c "
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
AT = -100
if libc.renameat2(AT, sys.argv[1].encode(), AT, sys.argv[2].encode(), 1) != 0:
    e = ctypes.get_errno()
    print(os.strerror(e), file=sys.stderr)
    sys.exit(1)
" "$@"
}
check_err "RENAME_NOREPLACE onto a name: EEXIST" 1 "File exists" renameat2 "$M/r1" "$M/r2"
check_out "both kept" "one two" sh -c "echo \$(cat '$M/r1' '$M/r2')"
check "RENAME_NOREPLACE to a new name" renameat2 "$M/r1" "$M/r3"
check_out "renamed" "one" cat "$M/r3"

# The distribution as extended attributes.
xget() { python3 -c "import os, sys; print(os.getxattr(sys.argv[1], 'user.pvfs.' + sys.argv[2]).decode())" "$@"; }
xset() { python3 -c "import os, sys; os.setxattr(sys.argv[1], 'user.pvfs.' + sys.argv[2], sys.argv[3].encode())" "$@"; }
check_out "listxattr" "['user.pvfs.base', 'user.pvfs.copies', 'user.pvfs.pcount', 'user.pvfs.ssize']" \
	python3 -c "import os; print(sorted(os.listxattr('$M/big')))"
dist=$(pvfs-stat /pvfs/big | sed -n 's/^  Dist: base \([0-9]*\)  pcount \([0-9]*\)  ssize \([0-9]*\)$/\1 \2 \3/p')
check_out "xattrs: the distribution pvfs-stat shows" "$dist" \
	sh -c "echo \$(xget() { python3 -c \"import os, sys; print(os.getxattr(sys.argv[1], 'user.pvfs.' + sys.argv[2]).decode())\" \"\$@\"; }; \
	xget '$M/big' base; xget '$M/big' pcount; xget '$M/big' ssize)"
: >"$M/lay"
check "set pcount on an empty file" xset "$M/lay" pcount 2
check "set ssize on an empty file" xset "$M/lay" ssize 131072
check_grep "natively: the new distribution" "^  Dist: base [0-9]+  pcount 2  ssize 131072$" pvfs-stat /pvfs/lay
check_out "xattr: pcount" "2" xget "$M/lay" pcount
check "write after the change" cp "$T/rand" "$M/lay"
check "its bytes, natively" sh -c "pvfs-cp /pvfs/lay - | cmp - '$T/rand'"
check_err "set on a file with data: EBUSY" 1 "busy" xset "$M/lay" pcount 1
check_err "a bad value: EINVAL" 1 "Invalid argument" xset "$M/lay" pcount x
check_err "a directory: no distribution" 1 "not supported" xset "$M" pcount 1
# Mirrored files (issue 17): a file's copies, a directory's default.
check_out "xattr: an unmirrored file has 1 copy" "1" xget "$M/big" copies
: >"$M/mir"
check "set copies on an empty file" xset "$M/mir" copies 2
check_grep "natively: a mirrored file" "^  Dist: base [0-9]+  pcount [0-9]+  ssize [0-9]+  copies 2  mshift [0-9]+$" pvfs-stat /pvfs/mir
check "write the mirrored file" cp "$T/rand" "$M/mir"
check "its bytes" cmp "$M/mir" "$T/rand"
mkdir "$M/mdir"
check_out "listxattr of a directory: copies alone" "['user.pvfs.copies']" \
	python3 -c "import os; print(sorted(os.listxattr('$M/mdir')))"
check_out "a directory without a default: 0" "0" xget "$M/mdir" copies
check "set a directory's default" xset "$M/mdir" copies 2
check_out "the default" "2" xget "$M/mdir" copies
echo x >"$M/mdir/new"
check_out "a new file in it is mirrored" "2" xget "$M/mdir/new" copies

# pvfs-bench's mount mode prints its figures (their size is no test).
check_grep "pvfs-bench data --mount" '^RESULT data-mount clients=1 .* write=[0-9.]+ read=[0-9.]+ ' \
	pvfs-bench data -s 4M -b 1M --no-ref --mount "$M"
check_grep "pvfs-bench meta --mount" '^RESULT meta-mount clients=1 files=50 op=stat rate=[0-9]+ ' \
	pvfs-bench meta -n 50 --no-ref --mount "$M"
check_out "pvfs-bench left nothing behind" "" sh -c "ls -A '$M' | grep pvfs-bench; true"

# A second mount of the same file system, by URL through mount.fuse.pvfs
# (mount.fuse3's convention, what mount -t fuse.pvfs and fstab run), in
# page cache mode (-o page_cache).
mkdir -p "$T/m2"
FZ_MOUNTS="$FZ_MOUNTS $T/m2"
check "mount.fuse.pvfs URL DIR -o ..." env PVFS_FUSE="$B/pvfs-fuse" \
	"$B/mount.fuse.pvfs" "$URL/" "$T/m2" -o rw,nodev,nosuid,_netdev,page_cache
check_grep "the second mount: its source" "^$URL $T/m2 fuse.pvfs " cat /proc/mounts
echo first >"$M/shared"
check_out "the second mount sees the first one's write" "first" cat "$T/m2/shared"
echo second >"$T/m2/shared"
check_out "and the first the second's" "second" cat "$M/shared"
check_out "appends from both" "second
third
fourth" sh -c "echo third >>'$M/shared'; echo fourth >>'$T/m2/shared'; cat '$M/shared'"
check "page_cache: the 12 MiB file reads the same" cmp "$T/big" "$T/m2/big"
some_cached() { [ "$(cached_after_read "$1")" -gt 0 ]; }
check "page_cache: a read leaves the file's pages cached" some_cached "$T/m2/big"
check "page_cache: cp into the mount, read natively" sh -c \
	"cp '$T/rand' '$T/m2/pc' && pvfs-cp /pvfs/pc - | cmp - '$T/rand'"
check "page_cache: python mmap ACCESS_WRITE" python3 -c "
import mmap
with open('$T/m2/pc', 'r+b') as f:
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_WRITE)
    m[0:5] = b'hello'
    m.flush()
    m.close()
"
check_out "page_cache: mmap's write, read natively" "hello" sh -c \
	"pvfs-cp /pvfs/pc - | head -c 5"
check "unmount the second" fz_umount "$T/m2"

# A mgr that does not answer: errors within the timeout, not a hung mount.
pvfs-local kill "$T/fs" mgr STOP >/dev/null 2>&1
t0=$(date +%s)
check_err "mgr stopped: stat fails" 1 "stat" timeout 60 stat "$M/native"
t1=$(date +%s)
check "  within the 3 s timeout and a retry (took $((t1 - t0)) s)" test $((t1 - t0)) -le 20
pvfs-local kill "$T/fs" mgr CONT >/dev/null 2>&1
# The mgr and an iod restarted under the mount: an open file reads on,
# new calls work.
exec 8<"$M/native"
pvfs-local kill "$T/fs" mgr >/dev/null 2>&1
pvfs-local kill "$T/fs" iod1 >/dev/null 2>&1
sleep 0.5
start_cluster
check "restarted: a file opened before reads whole" sh -c "cmp '$T/big' /dev/fd/8"
exec 8<&-
check "restarted: stat" stat "$M/native"
check "restarted: write and read back" sh -c "cp '$T/rand' '$M/after' && cmp '$T/rand' '$M/after'"

# A killed daemon: ENOTCONN, then a remount works.
pid=$(pgrep -f -x "$B/pvfs-fuse $M" || true)
check "the daemon's pid" test -n "$pid"
[ -n "$pid" ] && kill -9 $pid
sleep 0.5
check_err "killed: ENOTCONN" 1 "Transport endpoint is not connected" stat "$M"
fusermount3 -u "$M" 2>/dev/null || fusermount3 -uz "$M" 2>/dev/null
check "remount" fz_mount "$M"
check "the files are there" cmp "$T/big" "$M/native"
check "fusermount3 -u" fz_umount "$M"
check "unmounted" sh -c "! mountpoint -q '$M'"
finish
