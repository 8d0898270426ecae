# syntax=docker/dockerfile:1
# Build stage: compile TypeScript and the pocketsphinx addon.
FROM node:20-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends \
      libpocketsphinx-dev build-essential pkg-config python3 \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
COPY . .
RUN bash scripts/build-addon.sh && npm run build && npm prune --omit=dev

# Runtime stage: production dependencies, the built service, and the speech engine's Debian packages.
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      libpocketsphinx3 pocketsphinx-en-us flite tini \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# HOME in /tmp: onnxruntime (the VAD) keeps a telemetry device id under $HOME/.cache; when HOME is not
# writable it warns and tries a `:memory:.ses` file in the working directory instead.
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 DATA_DIR=/data HOME=/tmp
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/libs ./libs
COPY --from=build --chown=node:node /app/package.json ./package.json
RUN mkdir -p /data && chown node:node /data
# The process writes only to DATA_DIR (the embedded database) and /tmp (the embedded voice's audio, and
# HOME), as traced with strace through a whole conversation, so the root filesystem can be mounted
# read-only; mount volumes at both (deploy/ does).
VOLUME ["/data"]
# Numeric, so Kubernetes can check runAsNonRoot without a runAsUser (the image's `node` user).
USER 1000:1000
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--"]
# Migrations first (a no-op without DATABASE_URL: the embedded database is migrated at start), then the service.
CMD ["sh", "-c", "node dist/src/bin/migrate.js && exec node dist/src/main.js"]
