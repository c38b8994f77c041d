#!/bin/bash
# random.sh - random-operation checker: pread/pwrite/read/write/truncate/
# lseek through the shim, against a local shadow file.  The seeds are
# printed; PVFS_RANDOM_SEED=N reruns one, PVFS_RANDOM_OPS sets the count.
. "${PVFS_SRCDIR:-$(dirname "$0")/../..}/tests/preload/lib.sh"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }

OPS=${PVFS_RANDOM_OPS:-10000}
SEEDS=${PVFS_RANDOM_SEED:-"1 $(( $(date +%s) % 100000 ))"}
export OPS RC="$S/tests/preload/random-check.py"
for seed in $SEEDS; do
	t "random operations, seed $seed ($OPS ops)" "python3 \"\$RC\" /pvfs/rand.$seed \"\$L/shadow.$seed\" \$OPS $seed"
done
t "two processes sharing one PVFS descriptor's offset" '
	exec 5<>/pvfs/shared
	python3 -c "import os; os.write(5, b\"a\" * 1000)"
	python3 -c "import os; os.write(5, b\"b\" * 1000)"
	exec 5>&-
	[ "$(stat -c %s /pvfs/shared)" = 2000 ] && [ "$(head -c 1000 /pvfs/shared | tr -d a | wc -c)" = 0 ]'
cat >"$L/threads.py" <<'PY'
import os, threading
fd = os.open("/pvfs/threads", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
def pw(k):
    for i in range(40):
        os.pwrite(fd, bytes([k]) * 4096, (k * 40 + i) * 4096)
def app(k):
    for i in range(40):
        assert os.write(fd2, bytes([65 + k]) * 1000) == 1000
ts = [threading.Thread(target=pw, args=(k,)) for k in range(8)]
[t.start() for t in ts]; [t.join() for t in ts]
for k in range(8):
    assert os.pread(fd, 40 * 4096, k * 40 * 4096) == bytes([k]) * 40 * 4096, k
fd2 = os.open("/pvfs/threads2", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
ts = [threading.Thread(target=app, args=(k,)) for k in range(8)]
[t.start() for t in ts]; [t.join() for t in ts]
assert os.fstat(fd2).st_size == 8 * 40 * 1000
data = open("/pvfs/threads2", "rb").read()
assert all(data[i * 1000:(i + 1) * 1000] == data[i * 1000:i * 1000 + 1] * 1000 for i in range(320))
print("threads ok")
PY
t "threads: concurrent pwrite, and write sharing one offset" 'python3 threads.py'
finish
