# syntax=docker/dockerfile:1
# Taco Chat api replica. Build from the repository root:
#   docker build -f infra/docker/api.Dockerfile -t taco-chat-api .

# --- build: compile protocol and api (tsc -b follows the api's project reference) -------------
FROM node:20.20.2-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY protocol/package.json protocol/
COPY api/package.json api/
COPY web/package.json web/
COPY infra/harness/package.json infra/harness/
# The api's and protocol's dependencies and the root's tools (tsc); the web client's are not needed.
RUN npm ci --workspace api --workspace protocol --include-workspace-root --no-audit --no-fund
COPY tsconfig.base.json ./
COPY protocol/tsconfig.build.json protocol/
COPY protocol/src protocol/src
COPY api/tsconfig.build.json api/
COPY api/src api/src
RUN npx tsc -b api/tsconfig.build.json

# --- deps: production dependencies of the api and protocol workspaces only ---------------------
FROM node:20.20.2-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY protocol/package.json protocol/
COPY api/package.json api/
COPY web/package.json web/
COPY infra/harness/package.json infra/harness/
RUN npm ci --omit=dev --workspace api --workspace protocol --no-audit --no-fund \
 && mkdir -p api/node_modules protocol/node_modules

# --- runtime ------------------------------------------------------------------------------------
FROM node:20.20.2-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    WEB_DIST=off
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY --from=deps /app/api/node_modules api/node_modules
COPY --from=deps /app/protocol/node_modules protocol/node_modules
COPY package.json ./
COPY protocol/package.json protocol/
COPY api/package.json api/
COPY --from=build /app/protocol/dist protocol/dist
COPY --from=build /app/api/dist api/dist
# The image's unprivileged user; nothing in /app is writable by it.
USER node
EXPOSE 3000
# Liveness only (is the process up?), probed with bash alone (no node process per probe).
# Readiness, which also checks Redis and turns 503 while draining, is /api/health/ready: the
# compose healthcheck and load balancers use that one.
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${PORT:-3000} && printf 'GET /api/health/live HTTP/1.0\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
STOPSIGNAL SIGTERM
CMD ["node", "api/dist/main.js"]
