#!/bin/bash
# fio.sh - Debian's fio (psync engine, verify=crc32c) through the shim on
# a /pvfs file.
. "${PVFS_SRCDIR:-$(dirname "$0")/../..}/tests/preload/lib.sh"
command -v fio >/dev/null || { echo "SKIP: fio is not installed (apt-get install fio)"; exit 77; }

FIO="fio --ioengine=psync --verify=crc32c --do_verify=1 --verify_fatal=1 --output-format=terse --minimal"
export FIO
t "sequential write, read back and verify" '$FIO --name=seq --filename=/pvfs/fio.seq --rw=write --bs=64k --size=8M >out && [ -s /pvfs/fio.seq ]'
t "random 4k writes, verify" '$FIO --name=rnd --filename=/pvfs/fio.rnd --rw=randwrite --bs=4k --size=4M >out'
t "random writes of mixed sizes, verify" '$FIO --name=mix --filename=/pvfs/fio.mix --rw=randwrite --bsrange=512-128k --size=4M >out'
t "two jobs on two files" '$FIO --name=two --directory=/pvfs --rw=randwrite --bs=16k --size=2M --numjobs=2 >out'
t "fio files have the size written" '[ "$(stat -c %s /pvfs/fio.seq)" = 8388608 ] && [ "$(stat -c %s /pvfs/fio.rnd)" = 4194304 ]'
finish
