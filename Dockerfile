# syntax=docker/dockerfile:1
# Workboard's image: `docker build -t workboard .` (compose.yaml builds it too).
# Three stages on the official Node.js image of the recommended line (24 LTS): the build (esbuild into
# dist/, Vite into web/dist/, with the dev dependencies), the production dependencies alone, and the
# runtime, which holds only those two and runs `node dist/server.js` as an unprivileged user.
# Configured only by environment variables (README, "Configuration"); data in the /data volume.

ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
COPY web ./web
RUN node scripts/build.mjs && node scripts/build-web.mjs

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# No production dependency has an install script or needs a compiler (sharp ships prebuilt binaries).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
LABEL org.opencontainers.image.title="Workboard" \
      org.opencontainers.image.description="Self-hostable team work-management backend: organizations, spaces, kanban projects, tasks, reglaments, documentation." \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.documentation="README.md, docs/operations.md" \
      org.opencontainers.image.base.name="docker.io/library/node:24-bookworm-slim"

# Defaults only: every setting can be overridden at `docker run -e` / compose time.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    MALLOC_ARENA_MAX=2

WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
COPY --from=build /app/scripts/run.mjs /app/scripts/build.mjs ./scripts/
COPY package.json LICENSE THIRD_PARTY_NOTICES CHANGELOG.md ./

# /data: the embedded database, uploaded files (unless FILE_STORAGE=s3) and secrets.key.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 3000

HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# node itself is PID 1's command (no npm, no shell), so `docker stop`'s SIGTERM reaches the service,
# which stops accepting, drains requests in flight (20 s at most) and exits 0.
STOPSIGNAL SIGTERM
CMD ["node", "dist/server.js"]
