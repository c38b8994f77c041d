#!/bin/sh
# localize-static.sh ARCHIVE MAPFILE
#
# The shared library exports only the names in the version script; give the
# static archive the same surface, so that a program linking libpvfs.a
# statically cannot clash with our internal names (fatal, log_warn,
# io_read, ...).  All members are linked into one relocatable object, in
# which every global symbol but the public pvfs_* API becomes local.
set -eu
archive=$1
map=$2
: "${AR:=ar}" "${LD:=ld}" "${OBJCOPY:=objcopy}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case $archive in /*) ;; *) archive=$(pwd)/$archive ;; esac
sed -n 's/^[[:space:]]*\(pvfs_[a-z0-9_]*\);$/\1/p' "$map" > "$tmp/keep"
(cd "$tmp" && mkdir objs && cd objs && "$AR" x "$archive" &&
	$LD -r -o ../libpvfs-all.o ./*.o) # $LD may carry flags (-m elf_x86_64)
"$OBJCOPY" --keep-global-symbols="$tmp/keep" "$tmp/libpvfs-all.o"
rm -f "$archive"
"$AR" rcs "$archive" "$tmp/libpvfs-all.o"
