#!/usr/bin/env bash
# Builds the pocketsphinx N-API addon (libs/pocketsphinx) against the installed Node headers and
# Debian's libpocketsphinx-dev. Offline: node-gyp is npm's own copy and the headers come from
# /usr/include/node, so nothing is downloaded. Quick no-op when the binary is newer than its sources.
#   scripts/build-addon.sh           build if needed
#   scripts/build-addon.sh --force   rebuild from scratch
set -euo pipefail
cd "$(dirname "$0")/../libs/pocketsphinx"

binary=build/Release/pocketsphinx.node
if [[ "${1:-}" != "--force" && -f "$binary" ]]; then
  newer=$(find binding.gyp src -newer "$binary" -print -quit)
  if [[ -z "$newer" ]]; then
    echo "build-addon: $binary is up to date"
    exit 0
  fi
fi

if ! pkg-config --exists pocketsphinx; then
  echo "build-addon: libpocketsphinx-dev is missing (run scripts/setup.sh)" >&2
  exit 1
fi

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
if ((${#gyp_args[@]} == 0)); then
  echo "build-addon: Node headers not found (install the nodejs package that ships /usr/include/node)" >&2
  exit 1
fi

echo "build-addon: building libs/pocketsphinx (${gyp_args[*]})"
"${gyp_cmd[@]}" rebuild "${gyp_args[@]}" --jobs=max --loglevel=warn
echo "build-addon: built $binary"
