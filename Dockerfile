# syntax=docker/dockerfile:1
# Both stages on one Node.js LTS base, pinned by tag and digest (refresh both together:
# `docker buildx imagetools inspect node:<version>-bookworm-slim`). scripts/image/test.sh builds with a
# local stand-in of this image where Docker Hub cannot be reached (README, "The container image").
ARG NODE_IMAGE=docker.io/library/node:24.21.0-bookworm-slim@sha256:0e0ff40c39bc087845bfb27465a0df4ea419520094bc35842ff83dd8cbe6f9b6

# Build stage: compile TypeScript and the pocketsphinx, flite and opus addons, then prune to what runs.
FROM ${NODE_IMAGE} AS build
RUN apt-get update && apt-get install -y --no-install-recommends \
      libpocketsphinx-dev flite1-dev libopus-dev build-essential pkg-config python3 \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# An HTTPS-inspecting proxy's CA, when the build needs one: `--secret id=npm_ca,src=<bundle>`. A secret
# mount, so the CA never lands in a layer.
RUN --mount=type=secret,id=npm_ca,required=false \
    if [ -s /run/secrets/npm_ca ]; then export npm_config_cafile=/run/secrets/npm_ca; fi; \
    ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
COPY . .
# go-w here, not in the runtime stage, where a chmod would copy every file into a layer of its own.
RUN bash scripts/build-addon.sh && npm run build && bash scripts/image/prune-production.sh && chmod -R go-w /app

# Runtime stage: production dependencies, the built service, and the speech engine's Debian packages.
# ffmpeg decodes batch transcription's uploads in a child process (src/modules/transcriptions/decoding).
FROM ${NODE_IMAGE}
RUN apt-get update && apt-get install -y --no-install-recommends \
      libpocketsphinx3 pocketsphinx-en-us libflite1 libopus0 tini ffmpeg \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# HOME in /tmp: onnxruntime (the VAD) keeps a telemetry device id under $HOME/.cache; when HOME is not
# writable it warns and tries a `:memory:.ses` file in the working directory instead.
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 DATA_DIR=/data HOME=/tmp
# The code is root's and read-only to the service (uid 1000): even without a read-only root filesystem
# (a plain `docker run`), the process cannot rewrite what it runs. It owns only /data.
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/libs/pocketsphinx/build/Release/pocketsphinx.node ./libs/pocketsphinx/build/Release/
COPY --from=build /app/libs/flite/build/Release/flite.node ./libs/flite/build/Release/
COPY --from=build /app/libs/opus/build/Release/opus.node ./libs/opus/build/Release/
COPY --from=build /app/libs/pglite-host ./libs/pglite-host
COPY --from=build /app/package.json /app/scripts/image/healthcheck.cjs ./
RUN mkdir -p /data && chown node:node /data
# The process writes only to DATA_DIR (the embedded database) and /tmp (HOME), as traced with strace
# through a whole conversation (the embedded voice also wrote its audio there until it moved in-process),
# so the root filesystem can be mounted read-only; mount volumes at both (deploy/ does).
VOLUME ["/data"]
# Numeric, so Kubernetes can check runAsNonRoot without a runAsUser (the image's `node` user).
USER 1000:1000
# The API and its sockets; WebRTC calls' one UDP port (WEBRTC_UDP_PORT).
EXPOSE 8080 3479/udp
# Follows TLS_CERT_FILE/TLS_KEY_FILE, HOST and PORT (scripts/image/healthcheck.cjs).
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s CMD ["node", "/app/healthcheck.cjs"]
# SIGTERM drains: live sessions get SHUTDOWN_GRACE_SECONDS (7 by default), then are closed and recorded.
# `docker stop` waits 10 s before SIGKILL, which covers the default; with a longer drain, give
# `docker stop -t`/`docker run --stop-timeout` (compose: stop_grace_period) at least drain + 3 s.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
# Migrations first (a no-op without DATABASE_URL: the embedded database is migrated at start), then the service,
# with the young generation it is tuned for (HEAP_NODE_OPTIONS in src/platform/runtime/heap-tuning.ts).
CMD ["sh", "-c", "node dist/src/bin/migrate.js && exec node --max-semi-space-size=64 dist/src/main.js"]
