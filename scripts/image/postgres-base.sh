#!/usr/bin/env bash
# Builds a stand-in for the official postgres:15.19-bookworm image (compose.yaml's database), for
# machines that cannot pull from Docker Hub: Debian bookworm's postgresql-15 in a mmdebstrap root, with
# an entrypoint honouring the official image's POSTGRES_USER, POSTGRES_PASSWORD(_FILE) and POSTGRES_DB
# on first start, the same PGDATA, port, stop signal and user name. Tagged with the official name.
#   scripts/image/postgres-base.sh
set -euo pipefail
name="${POSTGRES_IMAGE:-docker.io/library/postgres:15.19-bookworm}"
work="$(mktemp -d /tmp/postgres-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT

cat > "$work/docker-entrypoint.sh" <<'SH'
#!/bin/bash
set -euo pipefail
export PGDATA="${PGDATA:-/var/lib/postgresql/data}"
if [[ "$(id -u)" == 0 ]]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
  password="${POSTGRES_PASSWORD:-}"
  [[ -n "${POSTGRES_PASSWORD_FILE:-}" ]] && password="$(<"$POSTGRES_PASSWORD_FILE")"
  [[ -n "$password" ]] || { echo "postgres: set POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE" >&2; exit 1; }
  user="${POSTGRES_USER:-postgres}"
  pwfile="$(mktemp)"
  printf '%s\n' "$password" > "$pwfile"
  initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  db="${POSTGRES_DB:-$user}"
  [[ "$db" == postgres ]] || echo "CREATE DATABASE \"$db\" OWNER \"$user\";" | postgres --single -D "$PGDATA" postgres >/dev/null
  echo "postgres: initialized $PGDATA (user $user, database $db)"
fi
exec "$@"
SH
chmod 755 "$work/docker-entrypoint.sh"

mmdebstrap --variant=minbase --quiet \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --aptopt='APT::Install-Recommends "false"' \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --include=postgresql-15 \
  --customize-hook="cp '$work/docker-entrypoint.sh' \"\$1/usr/local/bin/docker-entrypoint.sh\"" \
  --customize-hook='rm -rf "$1"/var/lib/postgresql/15 "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
  bookworm "$work/root.tar" http://deb.debian.org/debian

podman import \
  --change "ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --change "ENV PGDATA=/var/lib/postgresql/data" \
  --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
  --change 'CMD ["postgres"]' \
  --change 'STOPSIGNAL SIGINT' \
  --change 'EXPOSE 5432' \
  "$work/root.tar" "$name" >/dev/null
podman image inspect --format '{{.Digest}}' "$name"
