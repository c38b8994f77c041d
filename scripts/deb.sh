#!/bin/sh
# deb.sh [OUTDIR] - build the Debian packages from this tree with Debian's
# own tooling (dpkg-buildpackage -us -uc -b, debian/) and check them with
# lintian.  The tree's files (git's, plus new ones git does not ignore)
# are copied to a temporary directory first, so the build cannot collide
# with a configured tree or build directories here.  The .deb files, the
# .buildinfo, the .changes and lintian.txt go to OUTDIR (default _deb).
# Needs: apt-get install debhelper dpkg-dev fakeroot lintian libev-dev
# libmunge-dev libfuse3-dev pkg-config (as root this script installs what
# is missing).
# Exit status: 0 built and lintian found no error, 1 otherwise.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd -P)
OUT=$(mkdir -p "${1:-$SRC/_deb}" && cd "${1:-$SRC/_deb}" && pwd)
NEED="debhelper dpkg-dev fakeroot lintian libev-dev libmunge-dev libfuse3-dev pkg-config"

missing=""
for p in $NEED; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "deb.sh: missing packages:$missing (apt-get install them)" >&2
		exit 1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/pvfs-deb.XXXXXX")
trap 'rm -rf "$W"' EXIT
version=$(dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version)
T=$W/pvfs-$version
mkdir "$T"
# A git tree gives its files; a release tarball (make dist) is copied as
# it is, without the build directories made in it (make distcheck's).
# (A tarball unpacked inside a git tree, as make distcheck does, is not
# that tree: the test is that SRC is the tree's top.)
if [ "$(git -C "$SRC" rev-parse --show-toplevel 2>/dev/null)" = "$SRC" ]; then
	(cd "$SRC" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf -) | tar -C "$T" -xf -
else
	(cd "$SRC" && tar --exclude='./_build*' --exclude='./_deb' \
		--exclude='./_inst' --exclude='./autom4te.cache' -cf - .) |
		tar -C "$T" -xf -
fi

# Two jobs at most: the build machines are shared.
(cd "$T" && DEB_BUILD_OPTIONS="parallel=2 ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -us -uc -b) >"$OUT/build.log" 2>&1 ||
	{ tail -n 40 "$OUT/build.log"; echo "deb.sh: dpkg-buildpackage failed ($OUT/build.log)" >&2; exit 1; }
rm -f "$OUT"/*.deb "$OUT"/*.changes "$OUT"/*.buildinfo
mv "$W"/*.deb "$W"/*.changes "$W"/*.buildinfo "$OUT"/
changes=$(ls "$OUT"/*.changes)
lintian --tag-display-limit 0 "$changes" >"$OUT/lintian.txt" 2>&1 || true
cat "$OUT/lintian.txt"
ls "$OUT"/*.deb
if grep -q '^E: ' "$OUT/lintian.txt"; then
	echo "deb.sh: lintian found errors" >&2
	exit 1
fi
