#!/usr/bin/env bash
# Builds Storekeeper's OCI image without a container daemon: umoci (Debian's package) assembles
# an image from files only, so the build needs neither Docker nor root privileges in a registry.
#
#   Scripts/image.sh [BINARY]
#
# BINARY defaults to dist/storekeeper-<version>-linux-<arch>/storekeeper (Scripts/release.sh makes
# it); the resource bundles beside it (*.resources) go beside it in the image.
# Writes the OCI layout dist/oci (tagged <version>) and dist/storekeeper-<version>-oci.tar, an
# oci-archive that `podman load -i`, `skopeo copy oci-archive:…` and `docker load` (through
# skopeo) accept; prints the archive's path as the last line of standard output.
#
# Two layers: a base of Debian's package files only (glibc, the C++ runtime Swift's runtime
# needs, CA certificates, time zones; extracted with dpkg-deb, no package scripts run), then the
# binary. No shell, no package manager, no curl: the health check is `storekeeper health`.
# Runs as root (umoci keeps the files' owners); the .debs are cached in .build/image-debs.
set -euo pipefail
cd "$(dirname "$0")/.."

version="$(sed -n 's/.*static let baseVersion = "\([^"]*\)".*/\1/p' Sources/StorekeeperApps/Support/BuildInfo.swift)"
binary="${1:-dist/storekeeper-$version-linux-$(uname -m)/storekeeper}"
[ -x "$binary" ] || { echo "image: no binary at $binary (run Scripts/release.sh first)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "image: run as root (the layers keep the files' owners, uid 65532 included)" >&2; exit 1; }
command -v umoci >/dev/null || { echo "image: needs umoci (apt-get install umoci)" >&2; exit 1; }
# The version the binary was stamped with names the image; the commit becomes its revision.
stamp="$("$binary" --version)"
version="$(echo "$stamp" | sed -n 's/^storekeeper \([^ ]*\) (commit \([^,]*\), built \(.*\))$/\1/p')"
revision="$(echo "$stamp" | sed -n 's/^storekeeper \([^ ]*\) (commit \([^,]*\), built \(.*\))$/\2/p')"
created="$(echo "$stamp" | sed -n 's/^storekeeper \([^ ]*\) (commit \([^,]*\), built \(.*\))$/\3/p')"
[ -n "$version" ] && [ -n "$revision" ] || { echo "image: cannot read the stamp of $binary: $stamp" >&2; exit 1; }
# Where the code lives: STOREKEEPER_SOURCE_URL, else the checkout's origin remote.
source="${STOREKEEPER_SOURCE_URL:-$(git remote get-url origin 2>/dev/null || echo unknown)}"
case "$created" in unknown) created="$(date -u +%Y-%m-%dT%H:%M:%SZ)" ;; esac
case "$(uname -m)" in x86_64) architecture=amd64 ;; aarch64) architecture=arm64 ;; *) architecture="$(uname -m)" ;; esac

# The user the server runs as: uid and gid 65532, the convention of distroless images.
uid=65532
layout=dist/oci
archive="dist/storekeeper-$version-oci.tar"
debs=.build/image-debs
work="$(mktemp -d "${TMPDIR:-/tmp}/storekeeper-image.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "image: base layer from Debian's packages" >&2
mkdir -p "$debs"
packages=(libc6 libgcc-s1 libstdc++6 zlib1g ca-certificates tzdata)
for package in "${packages[@]}"; do
  # Cached per package; a changed version downloads again.
  if ! ls "$debs/${package}_$(apt-cache policy "$package" | sed -n 's/ *Candidate: //p' | sed 's/:/%3a/')_"*.deb >/dev/null 2>&1; then
    (cd "$debs" && apt-get download -q -o APT::Sandbox::User=root "$package" >&2)
  fi
done
base="$work/base"
mkdir -p "$base"
for package in "${packages[@]}"; do
  deb="$(ls -t "$debs/${package}_"*.deb | head -n 1)"
  dpkg-deb -x "$deb" "$base"
done
# What update-ca-certificates would write (package scripts do not run here): Mozilla's roots
# as the one bundle OpenSSL-style clients read.
mkdir -p "$base/etc/ssl/certs"
cat "$base"/usr/share/ca-certificates/mozilla/*.crt > "$base/etc/ssl/certs/ca-certificates.crt"
# Documentation and manuals are no use without a shell.
rm -rf "$base/usr/share/doc" "$base/usr/share/man" "$base/usr/share/info" "$base/usr/share/lintian"
cat > "$base/etc/passwd" <<EOF
root:x:0:0:root:/root:/sbin/nologin
storekeeper:x:$uid:$uid:Storekeeper:/var/lib/storekeeper:/sbin/nologin
EOF
cat > "$base/etc/group" <<EOF
root:x:0:
storekeeper:x:$uid:
EOF
printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$base/etc/nsswitch.conf"
printf '127.0.0.1 localhost\n::1 localhost\n' > "$base/etc/hosts"
mkdir -p "$base/tmp" "$base/var/lib/storekeeper" "$base/root"
chmod 1777 "$base/tmp"
chmod 0700 "$base/root"
chown "$uid:$uid" "$base/var/lib/storekeeper"
chmod 0750 "$base/var/lib/storekeeper"

echo "image: binary layer" >&2
app="$work/app"
mkdir -p "$app/usr/local/bin"
install -m 0755 "$binary" "$app/usr/local/bin/storekeeper"
# SwiftPM's resource bundles (the OpenAPI document, the dashboard's templates): Bundle.module
# finds them beside the executable.
for bundle in "$(dirname "$binary")"/*.resources; do cp -R "$bundle" "$app/usr/local/bin/"; done

rm -rf "$layout"
umoci init --layout "$layout"
umoci new --image "$layout:$version"
umoci insert --image "$layout:$version" --history.created_by "Scripts/image.sh: Debian ${packages[*]}" "$base" /
umoci insert --image "$layout:$version" --history.created_by "Scripts/image.sh: storekeeper $version" "$app" /
umoci config --image "$layout:$version" \
  --architecture "$architecture" --os linux --created "$created" --author "Storekeeper" \
  --config.user "$uid:$uid" \
  --config.env PATH=/usr/local/bin:/usr/bin:/bin \
  --config.env STOREKEEPER_DATA_DIR=/var/lib/storekeeper \
  --config.env STOREKEEPER_HOST=0.0.0.0 \
  --config.env STOREKEEPER_PORT=8080 \
  --config.env TZ=UTC \
  --config.exposedports 8080/tcp \
  --config.volume /var/lib/storekeeper \
  --config.workingdir /var/lib/storekeeper \
  --config.entrypoint /usr/local/bin/storekeeper \
  --config.cmd serve \
  --config.stopsignal SIGTERM \
  --config.label "org.opencontainers.image.title=Storekeeper" \
  --config.label "org.opencontainers.image.description=A self-hosted subscription backend for App Store apps" \
  --config.label "org.opencontainers.image.version=$version" \
  --config.label "org.opencontainers.image.revision=$revision" \
  --config.label "org.opencontainers.image.created=$created" \
  --config.label "org.opencontainers.image.source=$source" \
  --history.created_by "Scripts/image.sh: configuration"
umoci gc --layout "$layout"

# The oci-archive transport is the layout as one tar file.
rm -f "$archive"
tar -C "$layout" --owner=0 --group=0 --numeric-owner -cf "$archive" oci-layout index.json blobs
echo "image: $layout:$version, $(du -h "$archive" | cut -f1) archive (layers: $(du -sh "$base" | cut -f1) base, $(du -h "$binary" | cut -f1) binary)" >&2
echo "$archive"
