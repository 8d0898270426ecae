#!/usr/bin/env bash
# Runs compose.yaml as the README's container quickstart does (a fresh .env, `up`), then checks that
# PostgreSQL and the service become healthy, the first API key is printed and works, and `down` stops
# the service by draining (exit 0) within stop_grace_period. Uses podman-compose; builds the image first
# when it is missing (scripts/image/test.sh) and a stand-in of postgres when Docker Hub is unreachable.
#   PODMAN_SANDBOX=1 scripts/image/test-compose.sh   (runc and raised ulimits, for this project's CI sandboxes)
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "test-compose: FAIL: $*" >&2; exit 1; }
image=localhost/continuum:compose
if [[ -n "${PODMAN_SANDBOX:-}" ]]; then
  conf="$(mktemp /tmp/continuum-containers.XXXXXX.conf)"
  printf '[containers]\ndefault_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]\n[engine]\nruntime = "runc"\n' > "$conf"
  export CONTAINERS_CONF="$conf"
fi
port=8080

podman image exists "$image" || { IMAGE="$image" bash scripts/image/test.sh >/dev/null && echo "test-compose: built $image"; }
db_image="$(sed -n 's/^ *image: \(.*postgres.*\)$/\1/p' compose.yaml)"
podman image exists "$db_image" || podman pull -q "$db_image" >/dev/null 2>&1 || bash scripts/image/postgres-base.sh >/dev/null

# The README writes the password to .env; compose reads the environment first, and this leaves any
# .env of yours alone (podman-compose 1.0 has no --env-file).
POSTGRES_PASSWORD="$(openssl rand -hex 24)"
export POSTGRES_PASSWORD
# -p: podman-compose 1.0 ignores the file's top-level `name`.
compose=(podman-compose -p continuum -f compose.yaml)
cleanup() { "${compose[@]}" down -v >/dev/null 2>&1 || true; rm -f "${conf:-}"; }
trap cleanup EXIT

t0=$(date +%s)
# Its output is not shown: podman-compose echoes every command, environment (the password) included.
"${compose[@]}" up -d >/dev/null 2>&1 || fail "podman-compose up failed"
healthy() { [[ "$(podman inspect --format '{{.State.Running}}' "$1" 2>/dev/null)" == true ]] && podman healthcheck run "$1" >/dev/null 2>&1; }
for _ in $(seq 1 120); do
  podman container exists continuum_continuum_1 || fail "compose did not create the service's container"
  healthy continuum_db_1 && healthy continuum_continuum_1 && break
  sleep 1
done
healthy continuum_continuum_1 || { podman logs continuum_continuum_1 2>&1 | tail -20; fail "not healthy"; }
echo "test-compose: db and continuum healthy $(($(date +%s) - t0)) s after up"
podman ps --filter name=continuum_ --format '{{.Names}}\t{{.Image}}\t{{.Status}}'

logs="$(podman logs continuum_continuum_1 2>&1)"
key="$(grep -o 'wk_[A-Za-z0-9]\{32,\}' <<<"$logs" | head -1)"
[[ -n "$key" ]] || fail "no API key printed"
echo "test-compose: the log's banner (key shortened):"
grep -v '^{' <<<"$logs" | sed "s/$key/${key:0:10}…/" | sed 's/^/  /'
status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $key" "http://127.0.0.1:$port/v1/models")
[[ "$status" == 200 ]] || fail "GET /v1/models with the printed key: $status"
echo "test-compose: GET /v1/models with the printed key: $status"
[[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/models")" == 401 ]] || fail "no key, no 401"

t0=$(date +%s%N)
podman stop -t 40 continuum_continuum_1 >/dev/null
code=$(podman inspect --format '{{.State.ExitCode}}' continuum_continuum_1)
echo "test-compose: continuum stopped in $((($(date +%s%N) - t0) / 1000000)) ms, exit code $code"
[[ "$code" == 0 ]] || fail "exit code $code: killed, not drained"
echo "test-compose: PASS"
