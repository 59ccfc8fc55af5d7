# syntax=docker/dockerfile:1
# Taco Chat load balancer: nginx serving the built web client and proxying /api to the replicas.
# Build from the repository root:
#   docker build -f infra/docker/nginx.Dockerfile -t taco-chat-nginx .

# --- build: the web client, and nginx.conf rendered from infra/nginx/nginx.conf.template -------
# Only what nginx serves goes in: protocol and web sources, and the config renderer (which reads
# the api's security headers and the protocol's texts from their one definition). The api itself
# is never built here.
FROM node:20.20.2-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY protocol/package.json protocol/
COPY api/package.json api/
COPY web/package.json web/
COPY infra/harness/package.json infra/harness/
# The web client's dependencies (vite, react…) and the root's tools (tsc, tsx); not the api's:
# the renderer reads the header policy and texts from the protocol's sources.
RUN npm ci --workspace web --workspace protocol --include-workspace-root --no-audit --no-fund
COPY tsconfig.base.json ./
COPY protocol/tsconfig.build.json protocol/
COPY protocol/src protocol/src
COPY web/index.html web/vite.config.ts web/tsconfig.json web/
COPY web/public web/public
COPY web/build web/build
COPY web/src web/src
COPY infra/nginx infra/nginx
# The renderer takes texts from @taco/protocol, which resolves to its built dist.
RUN npx tsc -b protocol/tsconfig.build.json \
 && npm run build -w web \
 && npx tsx infra/nginx/render-nginx-config.ts --out /app/nginx.conf

# --- runtime: nginx ≥ 1.27.3 for `server … resolve` (replicas follow `docker compose --scale`) --
FROM nginx:1.27.5-alpine
RUN rm -f /etc/nginx/conf.d/default.conf
COPY --from=build /app/nginx.conf /etc/nginx/nginx.conf
COPY --from=build /app/web/dist /usr/share/nginx/html
EXPOSE 80
HEALTHCHECK --interval=5s --timeout=5s --start-period=10s --retries=3 \
  CMD wget -q -O /dev/null http://127.0.0.1/ || exit 1
CMD ["nginx", "-g", "daemon off;"]
