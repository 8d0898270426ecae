#!/usr/bin/env bash
# Checks that a fresh checkout installs, builds and passes a representative test subset under another
# Node.js (and npm) than the one on PATH: how the versions `engines` allows are tested (README,
# "Supported Node.js and npm"). Works on a clean clone of the committed HEAD in a temporary folder,
# so this checkout's node_modules and build outputs are never touched.
#   scripts/check-node-version.sh <node-dir>                 npm ci with the npm in <node-dir>/bin
#   scripts/check-node-version.sh <node-dir> --npm 10.8.2    npm ci with that npm version (via npx)
#   scripts/check-node-version.sh <node-dir> --install-only  npm ci and the builds, no tests
# <node-dir> is an unpacked Node.js distribution (bin/node, bin/npm, include/node), e.g. nodejs.org's
# linux-x64 tarball. Set KEEP=1 to keep the clone. Needs PostgreSQL like the tests themselves.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

node_dir="$(cd "${1:?usage: check-node-version.sh <node-dir> [--npm <version>] [--install-only]}" && pwd)"
shift
npm_version="" install_only=""
while (($#)); do
  case "$1" in
    --npm) npm_version="${2:?--npm needs a version}"; shift 2 ;;
    --install-only) install_only=1; shift ;;
    *) echo "check-node-version: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x "$node_dir/bin/node" ]] || { echo "check-node-version: $node_dir/bin/node not found" >&2; exit 2; }

export PATH="$node_dir/bin:$PATH"
export ONNXRUNTIME_NODE_INSTALL=skip
# A user .npmrc may point node-gyp at another Node's headers; the addon is built against this one's.
if [[ -f "$node_dir/include/node/node_api.h" ]]; then export npm_config_nodedir="$node_dir"; else unset npm_config_nodedir; fi

work="$(mktemp -d /tmp/continuum-node-check.XXXXXX)"
if [[ -z "${KEEP:-}" ]]; then trap 'rm -rf "$work"' EXIT; fi
git clone -q "$repo" "$work/continuum"
cd "$work/continuum"

step() { echo "== $1 ($(date -u +%T))"; }
if [[ -n "$npm_version" ]]; then npm_cmd=(npx -y "npm@$npm_version"); else npm_cmd=(npm); fi
step "node $(node -v), npm $("${npm_cmd[@]}" -v), commit $(git rev-parse --short HEAD) in $work/continuum"

step "${npm_cmd[*]} ci"
"${npm_cmd[@]}" ci --no-audit --no-fund
step "native addon"
bash scripts/build-addon.sh --force
step "npm run build"
npm run build
[[ -n "$install_only" ]] && exit 0

step "unit specs"
npx jest src libs -i
step "end-to-end subset"
npx jest -i test/e2e/foundation.e2e-spec.ts test/e2e/realtime.sdk.e2e-spec.ts \
  test/e2e/live-socket.sdk.e2e-spec.ts test/e2e/listen.sdk.e2e-spec.ts test/database/migrations.e2e-spec.ts
step "passed under node $(node -v)"
