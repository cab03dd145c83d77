#!/usr/bin/env bash
# Proves the release artifacts work on a machine without Swift:
#
#   1. Scripts/release.sh builds the stamped binary; it needs only glibc-family libraries (and
#      zlib), and its checksums hold.
#   2. In a fresh Debian root file system (debootstrap minbase, no swift, swiftc or cc), the
#      binary prints its version, passes `demo --check`, and `serve` answers /health with the
#      stamped version, then stops cleanly on SIGTERM. The demo passes again under the kernel's
#      refusal of writable and executable memory (the systemd unit's MemoryDenyWriteExecute).
#   3. Scripts/image.sh builds the OCI image; unpacked with umoci, as the image's user (65532)
#      and with the image's environment, the same demo and server run, and the server writes
#      its data directory as that user.
#   4. deploy/: the systemd unit passes `systemd-analyze verify`; the compose file and the
#      Kubernetes manifests parse and carry the settings the docs promise.
#
#   sudo Scripts/test-release.sh [--debug]
#
# --debug tests a debug build (release.sh --debug): the same artifacts minus the ten-minute
# release build, for CI. Runs as root (chroot, mounts); installs debootstrap and umoci with
# apt-get when missing. The Debian root file system is made once and reused:
# $STOREKEEPER_ROOTFS_CACHE (default .build/release-test/bookworm-minbase); each run works on an
# overlay of it (a copy where overlayfs is missing). Every process started here ends by itself:
# each has a deadline. Prints PASS/FAIL per check and exits 1 when any failed.
set -euo pipefail
cd "$(dirname "$0")/.."
repository="$(pwd)"

release_flags=()
case "${1:-}" in
  "") ;;
  --debug) release_flags=(--debug) ;;
  *) echo "usage: Scripts/test-release.sh [--debug]" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "test-release: run as root (debootstrap, chroot, mounts)" >&2; exit 2; }

started=$(date +%s)
work="$(mktemp -d "${TMPDIR:-/tmp}/storekeeper-test-release.XXXXXX")"
mounts=()
server=""
cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then kill -KILL "$server" 2>/dev/null || true; fi
  local index
  for ((index = ${#mounts[@]} - 1; index >= 0; index--)); do umount -l "${mounts[index]}" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

results=()
failures=0
# check NAME COMMAND…: runs one check, its output in $work/NAME.log, shown when it fails.
check() {
  local name="$1" begin=$(date +%s) status=0
  shift
  printf '== %s\n' "$name"
  "$@" > "$work/$name.log" 2>&1 || status=$?
  local seconds=$(($(date +%s) - begin))
  if [ "$status" = 0 ]; then
    results+=("PASS  $name (${seconds}s)")
    sed 's/^/   /' "$work/$name.log" | tail -n 8
  elif [ "$status" = 77 ]; then
    results+=("SKIP  $name: $(tail -n 1 "$work/$name.log")")
    sed 's/^/   /' "$work/$name.log" | tail -n 3
  else
    results+=("FAIL  $name (${seconds}s, exit $status)")
    failures=$((failures + 1))
    sed 's/^/   | /' "$work/$name.log" | tail -n 60
  fi
}

summary() {
  printf '\n== summary (%ss)\n' "$(($(date +%s) - started))"
  printf '%s\n' "${results[@]}"
  if [ "$failures" = 0 ]; then echo "PASS: every check passed"; else echo "FAIL: $failures check(s) failed"; fi
}

# A TCP port nothing listens on now, on the loopback interface the chroots share with the host.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Checks run in this shell (their mounts and servers are cleaned up on exit), where `set -e`
# does not apply: each step that can fail says `|| return 1`.

mount_into() { # ROOT: /proc and /dev for the programs that run in ROOT
  mkdir -p "$1/proc" "$1/dev" || return 1
  mount -t proc proc "$1/proc" || return 1
  mounts+=("$1/proc")
  mount --bind /dev "$1/dev" || return 1
  mounts+=("$1/dev")
}

# --- tools
install_tools() {
  local missing=()
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  command -v umoci >/dev/null || missing+=(umoci)
  command -v systemd-analyze >/dev/null || missing+=(systemd)
  [ "${#missing[@]}" = 0 ] && { echo "debootstrap, umoci and systemd-analyze are here"; return; }
  timeout 600 apt-get update -q && timeout 600 apt-get install -y -q "${missing[@]}"
}
check tools install_tools

# --- 1. the binary
build_release() {
  timeout 3600 Scripts/release.sh "${release_flags[@]}" > "$work/artifact" || return 1
  artifact="$(tail -n 1 "$work/artifact")"
  [ -x "$artifact" ] || { echo "no artifact at $artifact"; return 1; }
  echo "$artifact"
}
check release build_release
artifact="$(tail -n 1 "$work/artifact" 2>/dev/null || true)"
if [ -z "$artifact" ] || [ ! -x "$artifact" ]; then summary; exit 1; fi
stamp="$("$artifact" --version)"
version="$(echo "$stamp" | sed -n 's/^storekeeper \([^ ]*\) (.*/\1/p')"

needed_libraries() {
  echo "$stamp"
  local needed
  needed="$(readelf -d "$artifact" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
  echo "NEEDED: $needed"
  for library in $needed; do
    case "$library" in
      libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | libutil.so.* | ld-linux*.so.* | libstdc++.so.* | libgcc_s.so.* | libz.so.*) ;;
      *) echo "unexpected: $library"; return 1 ;;
    esac
  done
  ! readelf -d "$artifact" | grep -qiE 'curl|xml2|swift'
}
check libraries needed_libraries

checksums() { (cd dist && sha256sum --check SHA256SUMS) && tar -tzf "$(dirname "$artifact").tar.gz"; }
check checksums checksums

# --- 2. a fresh Debian without Swift
base="${STOREKEEPER_ROOTFS_CACHE:-$repository/.build/release-test/bookworm-minbase}"
make_base() {
  if [ -f "$base.complete" ]; then echo "reusing $base"; return; fi
  rm -rf "$base"
  mkdir -p "$(dirname "$base")"
  timeout 1800 debootstrap --variant=minbase bookworm "$base" http://deb.debian.org/debian || return 1
  touch "$base.complete"
}
check debootstrap make_base

root="$work/debian"
prepare_root() {
  mkdir -p "$work/upper" "$work/overlay-work" "$root" || return 1
  if mount -t overlay overlay -o "lowerdir=$base,upperdir=$work/upper,workdir=$work/overlay-work" "$root" 2>/dev/null; then
    mounts+=("$root")
    echo "overlay of $base"
  else
    cp -a "$base/." "$root/" || return 1
    echo "copy of $base"
  fi
  for tool in swift swiftc cc gcc clang; do
    if chroot "$root" /bin/sh -c "command -v $tool"; then echo "$tool is in the root file system"; return 1; fi
  done
  if [ -n "$(find "$root" -xdev -name 'libswift*' -print -quit)" ]; then echo "a Swift runtime library is in the root file system"; return 1; fi
  echo "no swift, swiftc, cc, gcc, clang or libswift* inside"
  # The binary and its resource bundles, as the release's folder holds them.
  cp -R "$(dirname "$artifact")/." "$root/usr/local/bin/" || return 1
  ls "$root/usr/local/bin"
  mount_into "$root"
}
check debian-root prepare_root

in_debian() { chroot "$root" "$@"; }
# A minimal configuration: one Sandbox app; the rest comes from the environment.
config_json='{"apps": [{"id": "release-test", "bundleId": "com.example.release", "environments": ["Sandbox"]}]}'

debian_version() { in_debian timeout 60 /usr/local/bin/storekeeper --version | tee /dev/stderr | grep -qxF "$stamp"; }
check debian-version debian_version

debian_demo() { in_debian timeout 900 /usr/local/bin/storekeeper demo --check --customers 50 --days 30; }
check debian-demo debian_demo

# serve_and_stop ROOT LOG COMMAND…: starts the server (COMMAND, a program with its deadline,
# which must serve on $port; SIGTERM to it must reach the server), waits for /health (asked
# with the binary's own `storekeeper health`, inside ROOT), checks the stamped version, sends
# SIGTERM and expects a clean exit (COMMAND's deadline bounds the wait).
serve_and_stop() {
  local probe_root="$1" log="$2" answer
  shift 2
  "$@" > "$log" 2>&1 &
  server=$!
  for _ in $(seq 1 240); do
    if answer="$(chroot "$probe_root" /usr/local/bin/storekeeper health --url "http://127.0.0.1:$port/health" --timeout 5 2>/dev/null)"; then break; fi
    kill -0 "$server" 2>/dev/null || { echo "the server exited:"; cat "$log"; return 1; }
    sleep 0.5
  done
  echo "/health: $answer"
  if ! python3 -c 'import json, sys; a = json.loads(sys.argv[1]); assert a["status"] == "ok" and a["version"] == sys.argv[2] and a["commit"] != "unknown", a' \
    "$answer" "$version"; then
    kill -TERM "$server" 2>/dev/null
    wait "$server" 2>/dev/null
    server=""
    tail -n 20 "$log"
    return 1
  fi
  kill -TERM "$server"
  local status=0
  wait "$server" || status=$?
  server=""
  [ "$status" = 0 ] || { echo "serve exited $status after SIGTERM:"; tail -n 20 "$log"; return 1; }
  echo "stopped cleanly on SIGTERM"
}

debian_serve() {
  port="$(free_port)"
  mkdir -p "$root/var/lib/storekeeper" || return 1
  serve_and_stop "$root" "$work/debian-serve.out" timeout --kill-after=10 300 chroot "$root" /usr/bin/env \
    STOREKEEPER_CONFIG_JSON="$config_json" STOREKEEPER_DATA_DIR=/var/lib/storekeeper STOREKEEPER_HOST=127.0.0.1 \
    STOREKEEPER_PORT="$port" /usr/local/bin/storekeeper serve || return 1
  ls -l "$root/var/lib/storekeeper"
}
check debian-serve debian_serve

# The systemd unit's MemoryDenyWriteExecute=yes: the kernel's own refusal of memory that is
# writable and executable (PR_SET_MDWE, Linux 6.3+, kept across exec), under which the demo
# must still pass.
memory_deny_write_execute() {
  timeout 900 python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN = 65, 1
if libc.prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0:
    print("skipped: this kernel has no PR_SET_MDWE (" + os.strerror(ctypes.get_errno()) + ")")
    sys.exit(77)
os.execv(sys.argv[1], sys.argv[1:])' "$artifact" demo --check --customers 20 --days 10
}
check memory-deny-write-execute memory_deny_write_execute

# --- 3. the image
build_image() { timeout 900 Scripts/image.sh "$artifact" > "$work/image" && tail -n 1 "$work/image"; }
check image build_image

bundle="$work/bundle"
unpack_image() {
  umoci unpack --image "dist/oci:$version" "$bundle" >/dev/null || return 1
  # The runtime configuration umoci derives from the image's: its user, environment, command.
  python3 - "$bundle/config.json" "$work/image-env" <<'EOF' || return 1
import json, sys
process = json.load(open(sys.argv[1]))["process"]
user = process["user"]
assert (user["uid"], user["gid"]) == (65532, 65532), user
env = dict(item.split("=", 1) for item in process["env"])
for name, value in {"STOREKEEPER_DATA_DIR": "/var/lib/storekeeper", "STOREKEEPER_HOST": "0.0.0.0", "STOREKEEPER_PORT": "8080"}.items():
    assert env.get(name) == value, (name, env.get(name))
assert process["args"] == ["/usr/local/bin/storekeeper", "serve"], process["args"]
open(sys.argv[2], "w").write("\n".join(process["env"]) + "\n")
print("user 65532:65532, env", " ".join(sorted(env)), "args", " ".join(process["args"]))
EOF
  python3 - dist/oci <<'EOF' || return 1
import json, sys
layout = sys.argv[1]
blob = lambda digest: json.load(open(f"{layout}/blobs/sha256/{digest.split(':')[1]}"))
manifest = blob(json.load(open(f"{layout}/index.json"))["manifests"][0]["digest"])
config = blob(manifest["config"]["digest"])["config"]
labels = config["Labels"]
for label in ("org.opencontainers.image.version", "org.opencontainers.image.revision", "org.opencontainers.image.source"):
    assert labels.get(label), label
assert "/var/lib/storekeeper" in config["Volumes"] and "8080/tcp" in config["ExposedPorts"], config
print("labels", labels["org.opencontainers.image.version"], labels["org.opencontainers.image.revision"], "; volume and port declared")
EOF
  local rootfs="$bundle/rootfs"
  [ "$(stat -c %u:%g "$rootfs/var/lib/storekeeper")" = 65532:65532 ] || { echo "/var/lib/storekeeper is not the user's"; return 1; }
  for tool in sh bash curl swift; do [ ! -e "$rootfs/bin/$tool" ] && [ ! -e "$rootfs/usr/bin/$tool" ] || { echo "$tool is in the image"; return 1; }; done
  echo "no shell, curl or swift in the image; $(du -sh "$rootfs" | cut -f1) unpacked"
  mount_into "$rootfs"
}
check image-unpack unpack_image

# image_user SECONDS [NAME=VALUE…]: the command line that runs a program in the unpacked image as
# its user, with only the image's environment plus the NAME=VALUE given (the image has no env
# binary: the environment is set before chroot), stopped after SECONDS; in the array `as_user`.
image_user() {
  local seconds="$1" environment=()
  shift
  mapfile -t environment < "$work/image-env"
  as_user=(timeout --kill-after=10 "$seconds" env -i "${environment[@]}" "$@" "$(command -v chroot)" --userspec=65532:65532 "$bundle/rootfs")
}

image_demo() {
  image_user 900
  "${as_user[@]}" /usr/local/bin/storekeeper demo --check --customers 50 --days 30
}
check image-demo image_demo

image_serve() {
  port="$(free_port)"
  touch "$work/before-serve"
  # The image's environment, a configuration and a free port (8080 may be taken on this host).
  image_user 300 STOREKEEPER_CONFIG_JSON="$config_json" STOREKEEPER_PORT="$port"
  serve_and_stop "$bundle/rootfs" "$work/image-serve.out" "${as_user[@]}" /usr/local/bin/storekeeper serve || return 1
  local written
  written="$(find "$bundle/rootfs/var/lib/storekeeper" -newer "$work/before-serve" -type f)"
  [ -n "$written" ] || { echo "the server wrote nothing in /var/lib/storekeeper"; return 1; }
  if find "$bundle/rootfs/var/lib/storekeeper" ! -uid 65532 | grep -q .; then echo "files not owned by 65532:"; ls -ln "$bundle/rootfs/var/lib/storekeeper"; return 1; fi
  echo "written by uid 65532:"
  ls -ln "$bundle/rootfs/var/lib/storekeeper"
}
check image-serve image_serve

# --- 4. deploy/
verify_unit() {
  mkdir -p "$work/systemd" || return 1
  # verify needs ExecStart's binary to exist: the unit as shipped, pointed at the built one.
  sed "s|^ExecStart=/usr/local/bin/storekeeper|ExecStart=$repository/$artifact|" deploy/systemd/storekeeper.service > "$work/systemd/storekeeper.service"
  grep -q "^ExecStart=$repository/$artifact serve" "$work/systemd/storekeeper.service" || { echo "ExecStart is not /usr/local/bin/storekeeper serve"; return 1; }
  local output
  output="$(SYSTEMD_LOG_LEVEL=notice timeout 60 systemd-analyze verify --man=no "$work/systemd/storekeeper.service" 2>&1)" || { echo "$output"; return 1; }
  echo "$output"
  # verify reports some problems only as warnings.
  if echo "$output" | grep -iE 'unknown|invalid|failed|ignoring'; then return 1; fi
  echo "systemd-analyze verify: no complaints"
}
check systemd-unit verify_unit

deploy_files() {
  local python=python3
  python3 -c 'import yaml' 2>/dev/null || python="$(Scripts/python-venv.sh .build/deploy-venv pyyaml yaml)" || return 1
  "$python" - deploy <<'EOF'
import sys, yaml
deploy = sys.argv[1]

compose = yaml.safe_load(open(f"{deploy}/compose.yaml"))
server, postgres = compose["services"]["storekeeper"], compose["services"]["postgres"]
assert postgres["image"].endswith("postgres:15"), postgres["image"]
assert any(volume.endswith(":/var/lib/postgresql/data") for volume in postgres["volumes"])
assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
assert server["depends_on"]["postgres"]["condition"] == "service_healthy"
assert server["healthcheck"]["test"][:3] == ["CMD", "/usr/local/bin/storekeeper", "health"], server["healthcheck"]
assert server["user"] == "65532:65532" and server["read_only"] is True and server["cap_drop"] == ["ALL"]
assert all(path.startswith("env/") for path in server["env_file"] + postgres["env_file"])
# No secret in the file itself: passwords, keys and database URLs come from env/ files.
text = open(f"{deploy}/compose.yaml").read()
for name in ("POSTGRES_PASSWORD:", "STOREKEEPER_DATABASE_URL:", "_API_KEY:", "_ADMIN_KEY:", "_SHARED_SECRET:"):
    assert name not in text, name
print("compose.yaml: postgres:15 with a volume and pg_isready; server after it is healthy, health probe, uid 65532, read-only, no capabilities, secrets from env/")

documents = {document["kind"]: document for document in yaml.safe_load_all(open(f"{deploy}/kubernetes/storekeeper.yaml"))}
workload = documents["StatefulSet"]
assert workload["spec"]["replicas"] == 1
pod = workload["spec"]["template"]["spec"]
assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] == 65532
container = pod["containers"][0]
context = container["securityContext"]
assert context["readOnlyRootFilesystem"] is True and context["capabilities"]["drop"] == ["ALL"] and context["allowPrivilegeEscalation"] is False
assert container["readinessProbe"]["httpGet"]["path"] == "/health"
assert container["livenessProbe"]["exec"]["command"][:2] == ["/usr/local/bin/storekeeper", "health"]
assert container["resources"]["requests"] and container["resources"]["limits"]
assert any(source.get("secretRef") for source in container["envFrom"])
mounts = {mount["mountPath"] for mount in container["volumeMounts"]}
assert {"/var/lib/storekeeper", "/tmp"} <= mounts, mounts
assert workload["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] == "data"
assert documents["Service"]["spec"]["ports"][0]["targetPort"] == "http"
print("kubernetes/storekeeper.yaml: one replica with a claim, Service, Secret, non-root 65532, read-only root, no capabilities, probes on /health, resources")
EOF
}
check deploy-files deploy_files

summary
[ "$failures" = 0 ]
