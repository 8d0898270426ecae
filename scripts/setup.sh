#!/usr/bin/env bash
# Installs everything Continuum needs on a Debian/Ubuntu machine. Idempotent: safe to run again.
#   scripts/setup.sh          runtime needs (speech engine packages, npm dependencies, native addon)
#   scripts/setup.sh --test   also the packages the test suite reads audio from
set -euo pipefail
cd "$(dirname "$0")/.."

# Runtime: pocketsphinx recognises speech (the addon links libpocketsphinx; pocketsphinx-en-us is the
# US English model), libflite speaks the `aria` voice (the flite addon links flite1-dev's libraries);
# libopus encodes and decodes WebRTC calls' audio (the opus addon links libopus-dev's library; measured
# 2.4 times less CPU than the wasm build, docs/webrtc.md); build-essential, pkg-config and python3
# (node-gyp runs on Python) build the addons against Node's headers.
# ffmpeg decodes the files of batch transcription (WAV, MP3, FLAC, Ogg/Opus, WebM, M4A), run as a bounded
# child process: the decoders the field trusts, none of them linked into the service's own process.
packages=(pocketsphinx pocketsphinx-en-us libpocketsphinx-dev flite1-dev libopus-dev build-essential pkg-config python3 ffmpeg)
if [[ "${1:-}" == "--test" ]]; then
  # The flite CLI: the flite addon's tests check its speech is the CLI's, sample for sample.
  packages+=(flite)
  # Test audio nobody here recorded: LibriVox and "cards" recordings with their transcripts.
  packages+=(pocketsphinx-testdata)
  # A second synthesiser for the end-of-turn calibration set (src/engines/embedded/testing/calibration-set.ts).
  packages+=(espeak-ng)
  # kubectl renders the Kubernetes manifests (kustomize); Chromium runs the browser tests of the playground.
  packages+=(kubectl chromium)
  # A real reverse proxy in front of the service (test/deploy/trusted-proxy.e2e-spec.ts).
  packages+=(nginx)
  # PgBouncer in transaction mode between the service and PostgreSQL (test/e2e/database-outage.e2e-spec.ts).
  packages+=(pgbouncer)
  # coturn, the TURN relay a WebRTC client that cannot reach the service's UDP port goes through
  # (test/e2e/webrtc-turn.browser.e2e-spec.ts starts one on loopback; docs/webrtc.md "Networks").
  packages+=(coturn)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: Debian packages present"
fi

# onnxruntime-node's postinstall downloads GPU providers from outside the npm registry; the CPU build ships in the tarball.
export ONNXRUNTIME_NODE_INSTALL=skip
if [[ ! -d node_modules ]] || [[ package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "setup: installing npm dependencies"
  # `npm ci` installs exactly the lock and never rewrites it. (`npm install` with npm 11 once rewrote the
  # lock with only this platform's optional native bindings, which `npm ci` elsewhere then refused.) The
  # lock holds every platform's bindings; it installs with npm 10.8.2 (Node 20.19, 22) and npm 11.
  npm ci --no-audit --no-fund
else
  echo "setup: npm dependencies up to date"
fi

bash scripts/build-addon.sh
