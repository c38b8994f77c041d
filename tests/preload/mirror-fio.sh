#!/bin/bash
# mirror-fio.sh - fio with verify (psync, crc32c) through the shim on a
# mirrored file while iod 1 is SIGKILLed and started again in a loop
# (PVFS_MIRROR_FIO_CYCLES cycles, default 2; make stress runs 30): every
# write succeeds and every byte verifies, then pvfs-resync --wait ends with
# nothing stale, the file verifies again, and reads the same with iod 0
# down, that is from the resynced copies.
. "${PVFS_SRCDIR:-$(dirname "$0")/../..}/tests/preload/lib.sh"
command -v fio >/dev/null || { echo "SKIP: fio is not installed (apt-get install fio)"; exit 77; }

CYCLES=${PVFS_MIRROR_FIO_CYCLES:-2}
SIZE=${PVFS_MIRROR_FIO_SIZE:-4M}
FIO="fio --ioengine=psync --verify=crc32c --verify_fatal=1 --verify_state_save=0
	--output-format=terse --minimal --name=m --filename=/pvfs/m/fio.m
	--bsrange=512-64k --size=$SIZE --randseed=7"
# The tools and libpvfs.so run outside the shim: in a sanitizer build
# they carry the sanitizer's runtime, which must not follow the shim.
N="env -u LD_PRELOAD ASAN_OPTIONS=verify_asan_link_order=0"
export FIO CYCLES B T N

# fio lays its file out anew: it is mirrored by its directory's default
# (pvfs_setcopies, from Python: no tool sets it).
t "a directory whose new files are mirrored" '$N "$B/pvfs-mkdir" /pvfs/m &&
	$N python3 -c "import ctypes, sys; sys.exit(ctypes.CDLL(\"$B/.libs/libpvfs.so\").pvfs_setcopies(b\"/pvfs/m\", 2))"'

# iod 1 killed and started again while fio writes and verifies.
killer() {
	local i
	for ((i = 0; i < CYCLES; i++)); do
		sleep 0.7
		$N "$B/pvfs-local" kill "$T/fs" iod1 KILL >/dev/null 2>&1
		sleep 1.5
		$N "$B/pvfs-local" start "$T/fs" --iods 4 --timeout 20 >/dev/null 2>&1
	done
}
export -f killer
t "fio writes and verifies while iod 1 dies and returns" '
	killer & k=$!
	n=0
	while kill -0 $k 2>/dev/null || [ $n -eq 0 ]; do
		$FIO --rw=randwrite --do_verify=1 >out
		n=$((n + 1))
	done
	wait $k
	echo "$n fio runs" >&2
	$N "$B/pvfs-local" start "$T/fs" --iods 4 --timeout 20 >/dev/null
	$N "$B/pvfs-stat" /pvfs/m/fio.m | grep -q "copies 2"'
t "the resync ends with nothing stale" '$N timeout 120 "$B/pvfs-resync" --wait /pvfs >out; grep -q "stale copies: 0" out'
t "the file verifies after the resync" '$FIO --rw=randwrite --verify_only >out'
# The same bytes with iod 0 down: read from the copies the resync made.
t "the resynced copies hold the same bytes (iod 0 down)" '
	$N "$B/pvfs-cp" /pvfs/m/fio.m before
	$N "$B/pvfs-local" kill "$T/fs" iod0 KILL >/dev/null
	$N "$B/pvfs-cp" /pvfs/m/fio.m after
	$N "$B/pvfs-local" start "$T/fs" --iods 4 --timeout 20 >/dev/null
	cmp before after'
# Degraded is visible: a file written while iod 1 is down.
t "pvfs-ping counts the degraded files while an iod is down" '
	$N "$B/pvfs-local" kill "$T/fs" iod1 KILL >/dev/null
	$N "$B/pvfs-cp" before /pvfs/m/degraded
	$N "$B/pvfs-ping" /pvfs >out 2>&1 || true  # 1: an iod is down
	$N "$B/pvfs-local" start "$T/fs" --iods 4 --timeout 20 >/dev/null
	grep -q "^mirrors: warning: [1-9][0-9]* degraded files" out'
t "after the resync pvfs-ping warns no more" '
	$N timeout 120 "$B/pvfs-resync" --wait /pvfs >/dev/null
	$N "$B/pvfs-ping" /pvfs >out 2>&1 || { cat out; exit 1; }
	! grep "mirrors: warning" out'
finish
