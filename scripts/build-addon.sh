#!/usr/bin/env bash
# Builds the N-API addons against the installed Node headers and Debian's development packages:
# libs/pocketsphinx (libpocketsphinx-dev), libs/flite (flite1-dev) and libs/opus (libopus-dev). Offline: node-gyp is npm's own
# copy and the headers come from /usr/include/node, so nothing is downloaded. Each addon is a quick
# no-op when its binary is newer than its sources.
#   scripts/build-addon.sh           build what is out of date
#   scripts/build-addon.sh --force   rebuild them all from scratch
set -euo pipefail
cd "$(dirname "$0")/.."
force="${1:-}"

# The node-gyp that ships inside npm; a global node-gyp is used only when npm's copy is absent.
npm_root="$(dirname "$(readlink -f "$(command -v npm)")")/.."
gyp="$npm_root/node_modules/node-gyp/bin/node-gyp.js"
if [[ -f "$gyp" ]]; then
  gyp_cmd=(node "$gyp")
elif command -v node-gyp >/dev/null; then
  gyp_cmd=(node-gyp)
else
  echo "build-addon: node-gyp not found (it ships with npm)" >&2
  exit 1
fi

# Distribution packages of Node install its headers under /usr/include/node; pointing node-gyp
# there keeps it from fetching a header tarball from nodejs.org.
gyp_args=()
node_prefix="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
for dir in "${npm_config_nodedir:-}" "$node_prefix" /usr /usr/local; do
  if [[ -n "$dir" && -f "$dir/include/node/node_api.h" && -f "$dir/include/node/common.gypi" ]]; then
    gyp_args+=(--nodedir="$dir")
    break
  fi
done

# build <lib> <binary name> <check command> <package to install when the check fails>
build() {
  local lib=$1 binary="libs/$1/build/Release/$2" check=$3 package=$4
  if [[ "$force" != "--force" && -f "$binary" ]]; then
    if [[ -z "$(find "libs/$lib/binding.gyp" "libs/$lib/src" -newer "$binary" -print -quit)" ]]; then
      echo "build-addon: $binary is up to date"
      return
    fi
  fi
  if ! eval "$check"; then
    echo "build-addon: $package is missing (run scripts/setup.sh)" >&2
    exit 1
  fi
  if ((${#gyp_args[@]} == 0)); then
    echo "build-addon: Node headers not found (install the nodejs package that ships /usr/include/node)" >&2
    exit 1
  fi
  echo "build-addon: building libs/$lib (${gyp_args[*]})"
  (cd "libs/$lib" && "${gyp_cmd[@]}" rebuild "${gyp_args[@]}" --jobs=max --loglevel=warn)
  echo "build-addon: built $binary"
}

build pocketsphinx pocketsphinx.node 'pkg-config --exists pocketsphinx' libpocketsphinx-dev
# flite1-dev ships no pkg-config file: its headers are the sign it is installed.
build flite flite.node '[[ -f /usr/include/flite/flite.h ]]' flite1-dev
build opus opus.node 'pkg-config --exists opus' libopus-dev
