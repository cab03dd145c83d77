#!/usr/bin/env bash
# Builds the release binary an operator runs without Swift: one executable with the Swift
# runtime linked in (--static-swift-stdlib), stamped with its version, commit and build date
# (`storekeeper --version`, `/health`), stripped, needing only glibc-family libraries.
#
#   Scripts/release.sh [--debug]
#
# Writes the folder dist/storekeeper-<version>-linux-<arch>: the binary `storekeeper` and the
# resource bundles it loads from beside itself (Storekeeper_StorekeeperHTTP.resources, the
# OpenAPI document; Storekeeper_StorekeeperDashboard.resources, the dashboard's templates), which
# are installed together (/usr/local/bin in the image and the systemd unit); that folder as
# dist/storekeeper-<version>-linux-<arch>.tar.gz; and dist/SHA256SUMS. Prints the binary's path
# as the last line of standard output (build chatter goes to standard error).
#
#   --debug  the same artifact from a debug build, quicker than the release build's optimizer
#            (both build in .build/static-stdlib, apart from `swift test`'s build: see below).
#            For CI checks, not for shipping.
#
# The version is BuildInfo.baseVersion (Sources/StorekeeperApps/Support/BuildInfo.swift), the one
# place it is set. SOURCE_DATE_EPOCH, when set, fixes the build date.
set -euo pipefail
cd "$(dirname "$0")/.."

configuration=release
case "${1:-}" in
  "") ;;
  --debug) configuration=debug ;;
  *) echo "usage: Scripts/release.sh [--debug]" >&2; exit 2 ;;
esac

version="$(sed -n 's/.*static let baseVersion = "\([^"]*\)".*/\1/p' Sources/StorekeeperApps/Support/BuildInfo.swift)"
[ -n "$version" ] || { echo "release: no baseVersion in BuildInfo.swift" >&2; exit 1; }
commit="$(git rev-parse --short=7 HEAD 2>/dev/null || echo unknown)"
# A binary built from uncommitted changes must not pass for the commit.
if [ "$commit" != unknown ] && ! git diff --quiet HEAD -- 2>/dev/null; then commit="$commit-dirty"; fi
built="$(date -u ${SOURCE_DATE_EPOCH:+-d "@$SOURCE_DATE_EPOCH"} +%Y-%m-%dT%H:%M:%SZ)"
arch="$(uname -m)"
name="storekeeper-$version-linux-$arch"

# A build folder of its own: objects compiled for --static-swift-stdlib carry the static
# Foundation's link requests (-lCoreFoundation, …), so mixed into .build/debug or .build/release
# they break the next ordinary link there (swift test, quickstart.sh), and the ordinary build's
# objects would be relinked here unchanged. The dependencies' sources come from SwiftPM's cache.
scratch=.build/static-stdlib
build() { swift build -c "$configuration" --static-swift-stdlib --scratch-path "$scratch" "$@"; }
echo "release: building $name ($configuration, commit $commit, built $built) in $scratch" >&2
build --product storekeeper >&2

# The stamp: a header that exists only for the last step, which recompiles BuildStamp.c and
# relinks; no Swift module changes. Removed (and the .c touched, so the next build forgets the
# stamp) on every exit, failed builds included.
stamp=Sources/CBuildStamp/BuildStamp.generated.h
unstamp() { rm -f "$stamp"; touch Sources/CBuildStamp/BuildStamp.c; }
trap unstamp EXIT
cat > "$stamp" <<EOF
// Written by Scripts/release.sh for one build; never committed.
#define STOREKEEPER_BUILD_VERSION "$version"
#define STOREKEEPER_BUILD_COMMIT "$commit"
#define STOREKEEPER_BUILD_DATE "$built"
EOF
touch Sources/CBuildStamp/BuildStamp.c
build --product storekeeper >&2
binary="$(build --show-bin-path)/storekeeper"
unstamp
trap - EXIT

mkdir -p dist
rm -rf "dist/$name" "dist/$name.tar.gz"
mkdir "dist/$name"
cp "$binary" "dist/$name/storekeeper"
strip --strip-all "dist/$name/storekeeper"
# SwiftPM's resource bundles: Bundle.module finds them beside the executable.
cp -R "$(dirname "$binary")"/*.resources "dist/$name/"

# What the binary needs from the system: glibc's libraries, the C++ runtime Swift's own
# runtime uses, and zlib (swift-nio-extras' gzip links the system's; every Debian has zlib1g,
# a required package). Anything else (libcurl through FoundationNetworking, libxml2 through
# FoundationXML, libswiftCore.so) would make it fail on a machine without Swift.
needed="$(readelf -d "dist/$name/storekeeper" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')"
for library in $needed; do
  case "$library" in
    libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | libutil.so.* | ld-linux*.so.* | libstdc++.so.* | libgcc_s.so.* | libz.so.*) ;;
    *) echo "release: dist/$name/storekeeper needs $library, which a machine without Swift may not have" >&2; exit 1 ;;
  esac
done
echo "release: needs only $needed" >&2

"dist/$name/storekeeper" --version | grep -q "commit $commit, built $built" || {
  echo "release: dist/$name/storekeeper does not carry its stamp: $("dist/$name/storekeeper" --version)" >&2
  exit 1
}

tar -C dist --owner=0 --group=0 --numeric-owner --mtime="$built" --sort=name -czf "dist/$name.tar.gz" "$name"
(cd dist && sha256sum "$name/storekeeper" "$name.tar.gz" > SHA256SUMS)
echo "release: $(du -h "dist/$name/storekeeper" | cut -f1) binary, $(du -h "dist/$name.tar.gz" | cut -f1) archive" >&2
echo "dist/$name/storekeeper"
