#!/bin/bash
# programs.sh - tar and python3 (files, os, shutil, tempfile, sqlite3)
# on /pvfs through libpvfs-preload.so.
. "${PVFS_SRCDIR:-$(dirname "$0")/../..}/tests/preload/lib.sh"

SRC=$S/src
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
export SRC

t "tar cf of a real tree into /pvfs, tar xf out of it" '
	tar cf /pvfs/src.tar -C "$SRC" .
	mkdir x && tar xf /pvfs/src.tar -C x && diff -r "$SRC" x'
t "tar xf into /pvfs, diff -r" 'mkdir /pvfs/srcx && tar xf /pvfs/src.tar -C /pvfs/srcx && diff -r "$SRC" /pvfs/srcx'
t "tar cf from /pvfs (a pipe), tar xf locally" 'tar cf - -C /pvfs/srcx . | (mkdir y && tar xf - -C y) && diff -r "$SRC" y'
t "tar czf and tar tzf on /pvfs" 'tar czf /pvfs/src.tgz -C "$SRC" . && [ "$(tar tzf /pvfs/src.tgz | wc -l)" = "$(tar tf /pvfs/src.tar | wc -l)" ]'

cat >"$L/files.py" <<'PY'
import os, sys
p = "/pvfs/py"
os.mkdir(p)
with open(p + "/a.txt", "w") as f:
    f.write("hello\n" * 1000)
with open(p + "/a.txt", "r+b") as f:
    f.seek(6 * 500)
    f.write(b"HELLO\n")
    f.seek(0, 2)
    assert f.tell() == 6000, f.tell()
    f.seek(-6, 2)
    assert f.read() == b"hello\n"
    f.seek(6 * 500)
    assert f.read(6) == b"HELLO\n"
with open(p + "/a.txt", "a") as f:
    f.write("tail\n")
assert open(p + "/a.txt").read().endswith("hello\ntail\n")
st = os.stat(p + "/a.txt")
assert st.st_size == 6005, st.st_size
os.rename(p + "/a.txt", p + "/b.txt")
assert os.listdir(p) == ["b.txt"], os.listdir(p)
os.makedirs(p + "/d1/d2")
open(p + "/d1/d2/f", "w").close()
walk = sorted((r, sorted(d), sorted(f)) for r, d, f in os.walk(p))
assert walk == [(p, ["d1"], ["b.txt"]), (p + "/d1", ["d2"], []),
                (p + "/d1/d2", [], ["f"])], walk
os.remove(p + "/d1/d2/f")
assert not os.path.exists(p + "/d1/d2/f")
assert os.path.isdir(p + "/d1") and os.path.isfile(p + "/b.txt")
fd = os.open(p + "/raw", os.O_RDWR | os.O_CREAT, 0o600)
assert os.pwrite(fd, b"xyz", 100) == 3
assert os.pread(fd, 3, 100) == b"xyz"
assert os.pread(fd, 5, 0) == b"\0" * 5
os.ftruncate(fd, 50)
assert os.fstat(fd).st_size == 50
os.close(fd)
with os.scandir(p) as it:
    names = sorted(e.name for e in it if e.is_file())
assert names == ["b.txt", "raw"], names
print("files ok")
PY
t "python3 open/read/write/seek, os.*" 'python3 files.py'

cat >"$L/tree.py" <<'PY'
import filecmp, os, shutil, sys, tempfile
src = sys.argv[1]
shutil.copytree(src, "/pvfs/copy")
cmp = filecmp.dircmp(src, "/pvfs/copy")
def same(c):
    assert not c.left_only and not c.right_only and not c.diff_files, (c.left_only, c.right_only, c.diff_files)
    for sub in c.subdirs.values():
        same(sub)
same(cmp)
for r, d, files in os.walk(src):
    for f in files:
        a = os.path.join(r, f)
        b = os.path.join("/pvfs/copy", os.path.relpath(a, src))
        assert open(a, "rb").read() == open(b, "rb").read(), a
shutil.copytree("/pvfs/copy", "/pvfs/copy2")
shutil.rmtree("/pvfs/copy2")
assert not os.path.exists("/pvfs/copy2")
os.mkdir("/pvfs/tmp")
fd, name = tempfile.mkstemp(dir="/pvfs/tmp")
os.write(fd, b"temp")
os.close(fd)
assert open(name, "rb").read() == b"temp"
with tempfile.NamedTemporaryFile(dir="/pvfs/tmp") as t:
    t.write(b"named")
    t.flush()
    assert open(t.name, "rb").read() == b"named"
d = tempfile.mkdtemp(dir="/pvfs/tmp")
assert os.path.isdir(d)
with tempfile.TemporaryDirectory(dir="/pvfs/tmp") as td:
    open(os.path.join(td, "x"), "w").write("x")
assert not os.path.exists(td)
print("tree ok")
PY
t "python3 shutil.copytree, rmtree, tempfile in /pvfs" 'python3 tree.py "$SRC"'

cat >"$L/db.py" <<'PY'
import sqlite3
db = sqlite3.connect("/pvfs/test.db")
db.execute("create table t (k integer primary key, v text)")
with db:
    db.executemany("insert into t (v) values (?)", [("row%d" % i,) for i in range(2000)])
db.close()
db = sqlite3.connect("/pvfs/test.db")
assert db.execute("select count(*), max(k) from t").fetchone() == (2000, 2000)
assert db.execute("select v from t where k = 1234").fetchone() == ("row1233",)
with db:
    db.execute("delete from t where k % 2 = 0")
db.execute("vacuum")
assert db.execute("select count(*) from t").fetchone() == (1000,)
db.close()
print("sqlite ok")
PY
t "python3 sqlite3 on /pvfs (fcntl locks)" 'python3 db.py'
if command -v sqlite3 >/dev/null; then
	t "sqlite3 shell on /pvfs" '
		sqlite3 /pvfs/cli.db "create table a(x); insert into a values (1),(2),(3);"
		[ "$(sqlite3 /pvfs/cli.db "select sum(x) from a")" = 6 ]
		[ "$(sqlite3 /pvfs/test.db "select count(*) from t")" = 1000 ]'
fi
cat >"$L/locks.py" <<'PY'
import fcntl, os, subprocess, sys
fd = os.open("/pvfs/lockme", os.O_RDWR | os.O_CREAT, 0o644)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 10, 0)
# Another process sees the lock on the same range, not on another one.
code = """
import fcntl, os
fd = os.open('/pvfs/lockme', os.O_RDWR)
try:
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 10, 0)
    print('got')
except OSError:
    print('busy')
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 10, 100)
print('other range ok')
"""
out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.split()
assert out == ["busy", "other", "range", "ok"], out
fcntl.lockf(fd, fcntl.LOCK_UN, 10, 0)
out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.split()
assert out[0] == "got", out
print("locks ok")
PY
t "fcntl byte-range locks between processes" 'python3 locks.py'
# Local behaviour that must be libc's exactly (ctypes calls the shim's
# wrappers, as a C program would).
cat >"$L/local.py" <<'PY'
import ctypes, errno, fcntl, os, termios
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(os.environ["L"] + "/cr", os.O_WRONLY | os.O_CREAT, 0o644)
# close_range with first > last or unknown flags: EINVAL, nothing closed.
assert libc.close_range(9, 3, 0) == -1 and ctypes.get_errno() == errno.EINVAL
assert libc.close_range(fd, fd, 1 << 30) == -1 and ctypes.get_errno() == errno.EINVAL
os.fstat(fd)
# FIOCLEX/FIONCLEX work on a PVFS descriptor as on any other.
p = os.open("/pvfs/cloexec", os.O_RDWR | os.O_CREAT, 0o644)
fcntl.ioctl(p, termios.FIONCLEX)
assert os.get_inheritable(p)
fcntl.ioctl(p, termios.FIOCLEX)
assert not os.get_inheritable(p)
PY
t "local close_range, PVFS ioctl FIOCLEX are libc's" 'python3 local.py'
t "execvp of a local script without #! runs it with sh (env ./s)" '
	printf "echo ran\n" >noshebang && chmod +x noshebang && [ "$(env ./noshebang)" = ran ]
	cd /pvfs && [ "$(env "$L/noshebang")" = ran ]'
t "__open_2 with O_CREAT and no mode is a fortify failure" '
	rc=0; python3 -c "import ctypes, os; ctypes.CDLL(None).__open_2(b\"nomode\", os.O_CREAT | os.O_WRONLY)" 2>err || rc=$?
	[ $rc -ne 0 ] && grep -q "invalid open call" err && [ ! -e nomode ]'
finish
