#!/usr/bin/env bash
# Runs compose.yaml as the README's container quickstart does (fresh secrets, `up`), then checks that
# PostgreSQL and the service become healthy, the first API key is printed and works, the database
# password is in no container's environment, /metrics is not on the published port, and `down` stops
# the service by draining (exit 0) within stop_grace_period. Uses podman-compose; builds the image first
# when it is missing (scripts/image/test.sh) and a stand-in of postgres when Docker Hub is unreachable.
# Where podman's default runtime (crun) or its default ulimits cannot start a container (some sandboxes
# and CI runners), it says so and switches to runc with raised ulimits by itself; PODMAN_SANDBOX=1 asks
# for that from the start.
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "test-compose: FAIL: $*" >&2; exit 1; }
command -v podman-compose >/dev/null || fail "podman-compose is missing (apt-get install podman podman-compose runc)"
image=localhost/continuum:compose
sandbox() {
  conf="$(mktemp /tmp/continuum-containers.XXXXXX.conf)"
  printf '[containers]\ndefault_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]\n[engine]\nruntime = "runc"\n' > "$conf"
  export CONTAINERS_CONF="$conf"
}
[[ -n "${PODMAN_SANDBOX:-}" ]] && sandbox
port=8080

podman image exists "$image" || { IMAGE="$image" bash scripts/image/test.sh >/dev/null && echo "test-compose: built $image"; }
# podman's own complaint, not the noise about systemd timers (health checks) that precedes it.
reason() { grep -v 'systemd' <<<"$1" | grep -m1 '^Error' || grep -v 'systemd' <<<"$1" | tail -1; }
if [[ -z "${PODMAN_SANDBOX:-}" ]] && ! err="$(podman run --rm --network=none --entrypoint true "$image" 2>&1)"; then
  echo "test-compose: podman cannot start a container with its defaults here ($(reason "$err")); using runc with raised ulimits (as PODMAN_SANDBOX=1 does)" >&2
  sandbox
fi
err="$(podman run --rm --network=none --entrypoint true "$image" 2>&1)" \
  || fail "podman cannot start a container here, with runc and raised ulimits either: $(reason "$err")"
db_image="$(sed -n 's/^ *image: \(.*postgres.*\)$/\1/p' compose.yaml)"
podman image exists "$db_image" || podman pull -q "$db_image" >/dev/null 2>&1 || bash scripts/image/postgres-base.sh >/dev/null

# The secrets as the README writes them, in a folder of this run's: any secrets/ of yours is left alone.
CONTINUUM_SECRETS="$(mktemp -d /tmp/continuum-compose-secrets.XXXXXX)"
export CONTINUUM_SECRETS
password="$(openssl rand -hex 24)"
printf '%s\n' "$password" > "$CONTINUUM_SECRETS/postgres_password"
printf 'postgres://continuum:%s@db:5432/continuum\n' "$password" > "$CONTINUUM_SECRETS/database_url"
chmod 644 "$CONTINUUM_SECRETS"/*
# -p: podman-compose 1.0 ignores the file's top-level `name`.
compose=(podman-compose -p continuum -f compose.yaml)
cleanup() { "${compose[@]}" down -v >/dev/null 2>&1 || true; rm -rf "${conf:-}" "$CONTINUUM_SECRETS"; }
trap cleanup EXIT
# What went wrong, when something did: each container's state and the end of its log.
explain() {
  for c in continuum_db_1 continuum_continuum_1; do
    if ! podman container exists "$c"; then echo "  $c: not created" >&2; continue; fi
    echo "  $c: $(podman inspect --format '{{.State.Status}}, exit code {{.State.ExitCode}} {{.State.Error}}' "$c")" >&2
    podman logs --tail 30 "$c" 2>&1 | sed "s/$password/[password]/g; s/^/    /" >&2
  done
}

t0=$(date +%s)
# Its output is shown only on failure, without the password: podman-compose echoes every command.
up_log="$("${compose[@]}" up -d 2>&1)" || {
  sed "s/$password/[password]/g" <<<"$up_log" | tail -30 >&2
  explain
  fail "podman-compose up failed"
}
healthy() { [[ "$(podman inspect --format '{{.State.Running}}' "$1" 2>/dev/null)" == true ]] && podman healthcheck run "$1" >/dev/null 2>&1; }
for _ in $(seq 1 120); do
  podman container exists continuum_continuum_1 || { explain; fail "compose did not create the service's container"; }
  healthy continuum_db_1 && healthy continuum_continuum_1 && break
  sleep 1
done
healthy continuum_db_1 && healthy continuum_continuum_1 || { explain; fail "not healthy within 120 s"; }
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
status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")
[[ "$status" == 404 ]] || fail "/metrics on the published port: $status"
podman exec continuum_continuum_1 node -e \
  "fetch('http://127.0.0.1:9464/metrics').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))" \
  || fail "/metrics not served on METRICS_PORT inside the compose network"
echo "test-compose: /metrics: 404 on the published port, served on 9464 inside"
for c in continuum_db_1 continuum_continuum_1; do
  if podman inspect --format '{{json .Config.Env}}' "$c" | grep -q "$password"; then
    fail "the database password is in $c's environment"
  fi
done
echo "test-compose: the database password is in no container's environment (secrets as files)"

t0=$(date +%s%N)
podman stop -t 40 continuum_continuum_1 >/dev/null
code=$(podman inspect --format '{{.State.ExitCode}}' continuum_continuum_1)
echo "test-compose: continuum stopped in $((($(date +%s%N) - t0) / 1000000)) ms, exit code $code"
[[ "$code" == 0 ]] || fail "exit code $code: killed, not drained"
echo "test-compose: PASS"
