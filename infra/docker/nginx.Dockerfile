# syntax=docker/dockerfile:1
# Taco Chat load balancer: nginx serving the built web client and proxying /api to the replicas.
# Build from the repository root:
#   docker build -f infra/docker/nginx.Dockerfile -t taco-chat-nginx .

# --- build: the web client, and nginx.conf rendered from infra/nginx/nginx.conf.template -------
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY protocol/package.json protocol/
COPY api/package.json api/
COPY web/package.json web/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build \
 && npx tsx infra/nginx/render-nginx-config.ts --out /app/nginx.conf

# --- runtime: nginx ≥ 1.27.3 for `server … resolve` (replicas follow `docker compose --scale`) --
FROM nginx:1.27-alpine
RUN rm -f /etc/nginx/conf.d/default.conf
COPY --from=build /app/nginx.conf /etc/nginx/nginx.conf
COPY --from=build /app/web/dist /usr/share/nginx/html
EXPOSE 80
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD wget -q -O /dev/null http://127.0.0.1/ || exit 1
CMD ["nginx", "-g", "daemon off;"]
