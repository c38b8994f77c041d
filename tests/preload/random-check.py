#!/usr/bin/env python3
"""random-check.py - random pread/pwrite/read/write/truncate/lseek through
the preload shim on a PVFS file, checked against a local shadow file.

usage: random-check.py PVFS_FILE SHADOW_FILE OPS SEED
Prints the seed and the failing operation on a mismatch (exit 1).
"""
import os
import random
import sys

MAXOFF = 3 << 20     # offsets up to 3 MiB: 4 iods, 64 KiB stripes
MAXLEN = 200 << 10


def main():
    path, shadow, ops, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rng = random.Random(seed)
    fl = os.O_RDWR | os.O_CREAT | os.O_TRUNC
    p = os.open(path, fl, 0o644)
    s = os.open(shadow, fl, 0o644)
    pd = os.dup(p)        # shares p's offset, as s does with itself
    log = []

    def fail(msg):
        print("FAIL seed=%d op#%d: %s" % (seed, len(log), msg))
        print("last ops: %s" % log[-8:])
        sys.exit(1)

    def same(what, a, b):
        if a != b:
            fail("%s: pvfs %r != shadow %r" % (what, a if not isinstance(a, bytes) else (len(a), a[:16]),
                                              b if not isinstance(b, bytes) else (len(b), b[:16])))

    for i in range(ops):
        op = rng.choice(["pwrite", "pwrite", "pread", "pread", "write", "read",
                         "seek", "truncate", "size", "dupread"])
        off = rng.randrange(MAXOFF)
        n = rng.choice([1, 7, 512, 4096, 65536, rng.randrange(1, MAXLEN)])
        log.append((op, off, n))
        if op == "pwrite":
            data = rng.randbytes(n)
            same(op, os.pwrite(p, data, off), os.pwrite(s, data, off))
        elif op == "pread":
            same(op, os.pread(p, n, off), os.pread(s, n, off))
        elif op == "write":
            data = rng.randbytes(n)
            same(op, os.write(p, data), os.write(s, data))
        elif op == "read":
            same(op, os.read(p, n), os.read(s, n))
        elif op == "dupread":
            same(op, os.read(pd, n), os.read(s, n))
        elif op == "seek":
            whence = rng.choice([os.SEEK_SET, os.SEEK_CUR, os.SEEK_END])
            delta = off if whence == os.SEEK_SET else rng.randrange(-1000, 100000)
            try:
                a = os.lseek(p, delta, whence)
            except OSError as e:
                a = e.errno
            try:
                b = os.lseek(s, delta, whence)
            except OSError as e:
                b = e.errno
            same("lseek(%d, %d)" % (delta, whence), a, b)
        elif op == "truncate":
            size = rng.randrange(MAXOFF)
            if rng.random() < 0.5:
                os.ftruncate(p, size)
            else:
                os.truncate(path, size)
            os.ftruncate(s, size)
        else:
            same("fstat size", os.fstat(p).st_size, os.fstat(s).st_size)
            same("stat size", os.stat(path).st_size, os.stat(shadow).st_size)
        if i % 2500 == 2499:
            size = os.fstat(s).st_size
            same("whole file", os.pread(p, size + 10, 0), os.pread(s, size + 10, 0))
            same("offset", os.lseek(p, 0, os.SEEK_CUR), os.lseek(s, 0, os.SEEK_CUR))
    size = os.fstat(s).st_size
    same("final size", os.fstat(p).st_size, size)
    same("final contents", os.pread(p, size + 10, 0), os.pread(s, size + 10, 0))
    with open(path, "rb") as f:
        same("final read by stdio", f.read(), os.pread(s, size, 0))
    print("seed %d: %d operations match" % (seed, ops))


if __name__ == "__main__":
    main()
