#!/usr/bin/env bash
# Leaves in the build stage only what the runtime stage copies: production dependencies, this
# platform's native binaries, the service's own build. Run after `npm run build`.
set -euo pipefail
cd "$(dirname "$0")/../.."

# --omit=optional too: typescript and ts-node are optional peers of TypeORM (its CLI for .ts
# migrations, which production never runs), and pg-cloudflare is for Cloudflare Workers only.
npm prune --omit=dev --omit=optional --no-audit --no-fund

# onnxruntime-node (the VAD) ships its binaries for every OS and CPU in one package: keep this one's.
ort=node_modules/onnxruntime-node/bin/napi-v6
platform="$(node -p 'process.platform + "/" + process.arch')"
[[ -d "$ort/$platform" ]] || { echo "prune: no onnxruntime binary for $platform" >&2; exit 1; }
find "$ort" -mindepth 2 -maxdepth 2 -type d ! -path "$ort/$platform" -exec rm -rf {} +
find "$ort" -mindepth 1 -maxdepth 1 -type d -empty -delete

# Benchmarks and their fixtures are for the repository, not the service.
rm -rf dist/bench
# Of the addons' builds, only the binaries are loaded.
for addon in pocketsphinx flite; do
  find "libs/$addon/build" -mindepth 1 -maxdepth 1 ! -name Release -exec rm -rf {} +
  find "libs/$addon/build/Release" -mindepth 1 ! -name "$addon.node" -exec rm -rf {} +
done
# Source maps and type declarations are read by debuggers and editors, never by the running service
# (it does not run with --enable-source-maps): 53 MB and 15 MB of node_modules.
find node_modules -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -delete
# The same for the service's own build: its source maps (and the playground's) and TypeScript's
# incremental build state are of no use to what runs, and the maps would hand out the sources.
find dist -type f \( -name '*.map' -o -name '*.tsbuildinfo' \) -delete
