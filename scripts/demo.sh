#!/bin/bash
# demo.sh - the quick start: build, start a local file system (one mgr and
# four iods on loopback), copy a real file in, list it, show its striping,
# copy it back out, verify the checksum, stop.
#
#   scripts/demo.sh [FILE]
set -euo pipefail
PVFS_SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$PVFS_SRC/scripts/deps.sh"
file=${1:-/usr/bin/bash}
build=$PVFS_SRC/_build
dir=$(mktemp -d /tmp/pvfs-demo.XXXXXX)

pvfs_install_deps
echo "== building in $build"
pvfs_build "$build" --enable-werror

stop() { "$build/pvfs-local" stop "$dir" >/dev/null 2>&1 || true; }
trap stop EXIT

echo "== starting a local file system in $dir"
"$build/pvfs-local" start "$dir" --iods 4
export PVFSTAB_FILE=$dir/pvfstab
"$build/pvfs-local" status "$dir"

echo "== copying $file in"
"$build/examples/pvfs-example-copy" "$file" /pvfs/demo.bin
echo "== listing /pvfs"
"$build/examples/pvfs-example-ls" /pvfs
echo "== its striping"
"$build/examples/pvfs-example-stripes" --show /pvfs/demo.bin
echo "== reading it back"
"$build/examples/pvfs-example-copy" /pvfs/demo.bin "$dir/demo.back"
want=$(sha256sum < "$file" | cut -d' ' -f1)
got=$(sha256sum < "$dir/demo.back" | cut -d' ' -f1)
echo "sha256 original  $want"
echo "sha256 read back $got"
[ "$want" = "$got" ] || { echo "CHECKSUM MISMATCH"; exit 1; }
echo "== checksum verified; stopping"
stop
trap - EXIT
rm -rf "$dir"
echo "demo OK"
