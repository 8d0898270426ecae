#!/usr/bin/env bash
# Builds the image and proves it: size, what it holds, and that it runs, reports healthy (plain, on
# another HOST and PORT, and with TLS) and stops within docker's default 10 s. Uses podman (README,
# "The container image"); where Docker Hub cannot be reached, it first builds a stand-in of the base
# image (scripts/image/node-base.sh). Too slow for CI: `npm run test:image`.
#   IMAGE=localhost/continuum:test MAX_MB=550 scripts/image/test.sh
set -euo pipefail
command -v podman >/dev/null || { echo "test-image: podman is missing (apt-get install podman buildah runc)" >&2; exit 1; }
cd "$(dirname "$0")/../.."
image="${IMAGE:-localhost/continuum:test}"
max_mb="${MAX_MB:-550}"
# Flags this sandbox needs (crun and default rlimits fail here); harmless elsewhere.
flags=(--runtime=runc --ulimit nofile=20000:20000 --ulimit nproc=32768:32768 --network=host)
fail() { echo "test-image: FAIL: $*" >&2; exit 1; }

base_ref="$(sed -n 's/^ARG NODE_IMAGE=//p' Dockerfile)"
base_name="${base_ref%@*}"
if podman image exists "$base_ref" 2>/dev/null || podman pull -q "$base_ref" >/dev/null 2>&1; then
  base="$base_ref"
else
  version="${base_name##*:}"; version="${version%-bookworm-slim}"
  podman image exists "$base_name" || bash scripts/image/node-base.sh "$version" >/dev/null
  # The stand-in by its own digest: still a tag-and-digest reference, as in the Dockerfile.
  base="$base_name@$(podman image inspect --format '{{.Digest}}' "$base_name")"
  echo "test-image: base $base_ref unavailable; using the local stand-in $base"
fi

secret=()
ca=/etc/ssl/certs/ca-certificates.crt
[[ -s "$ca" ]] && secret=(--secret "id=npm_ca,src=$ca")
start=$(date +%s)
podman build "${flags[@]}" --format docker "${secret[@]}" --build-arg "NODE_IMAGE=$base" -t "$image" . >/tmp/continuum-image-build.log 2>&1 \
  || { tail -30 /tmp/continuum-image-build.log; fail "build failed"; }
echo "test-image: built in $(($(date +%s) - start)) s (log: /tmp/continuum-image-build.log)"

bytes=$(podman image inspect --format '{{.Size}}' "$image")
mb=$((bytes / 1000000))
echo "test-image: $image is $mb MB; layers over 1 MB:"
podman history --format '{{.Size}}|{{.CreatedBy}}' "$image" | awk -F'|' '$1 ~ /MB|GB/ {printf "  %-9s %s\n", $1, substr($2, 1, 110)}'
((mb <= max_mb)) || fail "$mb MB > $max_mb MB"

run() { podman run "${flags[@]}" --rm --entrypoint sh "$image" -c "$1" 2>/dev/null; }
[[ "$(run 'node -p process.version')" == v24.* ]] || fail "not Node.js 24"
run 'test ! -e node_modules/typescript && test ! -e node_modules/ts-node' || fail "typescript in the image"
run 'test ! -e dist/bench' || fail "dist/bench in the image"
[[ -z "$(run "find dist -name '*.map' -o -name '*.tsbuildinfo'")" ]] || fail "source maps or .tsbuildinfo in dist/"
# The service's user (the image's USER, 1000) can write its data and nothing of its code, even on a
# writable root filesystem.
[[ "$(run 'id -u')" == 1000 ]] || fail "not running as uid 1000"
[[ -z "$(run 'find /app -writable')" ]] || fail "uid 1000 can write under /app: $(run 'find /app -writable | head -5')"
run 'test "$(stat -c %U /app/dist/src/main.js)" = root && test -w /data' || fail "/app not root's, or /data not writable"
[[ "$(run 'ls -d node_modules/onnxruntime-node/bin/napi-v6/*/*')" == "node_modules/onnxruntime-node/bin/napi-v6/linux/x64" ]] \
  || fail "onnxruntime binaries of other platforms in the image"

tls="$(mktemp -d /tmp/continuum-image-tls.XXXXXX)"
containers=()
volumes_before=$(podman volume ls -q | wc -l)
# -v: each container's anonymous volume (the image's /data) goes with it.
cleanup() { for c in "${containers[@]}"; do podman rm -f -v "$c" >/dev/null 2>&1 || true; done; rm -rf "$tls"; }
trap cleanup EXIT
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -keyout "$tls/key.pem" -out "$tls/cert.pem" 2>/dev/null
chmod 755 "$tls" && chmod 644 "$tls"/*.pem

# name, then `podman run` arguments: each container must become healthy.
start_container() {
  local name="$1"; shift
  # Read-only root as deploy/ runs it; /data is the image's volume. (podman without systemd complains
  # that it cannot schedule health checks; they are run by hand below.)
  podman run "${flags[@]}" -d --name "$name" --read-only --tmpfs /tmp "$@" "$image" >/dev/null 2>/tmp/continuum-image-run.log
  containers+=("$name")
  local t0=$(date +%s)
  for _ in $(seq 1 90); do
    [[ "$(podman inspect --format '{{.State.Running}}' "$name")" == true ]] || break
    if podman healthcheck run "$name" >/dev/null 2>&1; then
      echo "test-image: $name healthy after $(($(date +%s) - t0)) s"
      return
    fi
    sleep 1
  done
  podman logs "$name" 2>&1 | grep -v '^{' | tail -20
  fail "$name never became healthy"
}
start_container continuum-test-plain -e PORT=18080
start_container continuum-test-host -e HOST=127.0.0.1 -e PORT=18081
start_container continuum-test-tls -e PORT=18443 -v "$tls:/tls:ro" -e TLS_CERT_FILE=/tls/cert.pem -e TLS_KEY_FILE=/tls/key.pem
curl -fsk https://127.0.0.1:18443/healthz >/dev/null || fail "TLS container does not answer https"
# The healthcheck must also fail: nothing answers on a port the service does not listen on.
if podman exec -e PORT=18999 continuum-test-plain node /app/healthcheck.cjs; then fail "healthcheck passed on a dead port"; fi

t0=$(date +%s%N)
podman stop -t 10 continuum-test-plain >/dev/null
stopped_ms=$((($(date +%s%N) - t0) / 1000000))
code=$(podman inspect --format '{{.State.ExitCode}}' continuum-test-plain)
echo "test-image: stopped in $stopped_ms ms with exit code $code"
[[ "$code" == 0 ]] || fail "exit code $code after stop (killed, not drained)"
cleanup
containers=()
volumes_after=$(podman volume ls -q | wc -l)
((volumes_after == volumes_before)) || fail "$((volumes_after - volumes_before)) volumes left behind"
echo "test-image: PASS"
