# syntax=docker/dockerfile:1
# The compose k6 service: k6 with the load-test scripts, and loadtest/k6/protocol.js bundled from
# @taco/protocol's source, as `npm run build` does for a local k6. Build from the repository root:
#   docker build -f infra/docker/k6.Dockerfile -t taco-chat-k6 .

# --- bundle: esbuild, at the version the lockfile pins, over the scripts and the protocol --------
FROM node:20.20.2-bookworm-slim AS bundle
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-save --no-package-lock --no-audit --no-fund --prefix /tools \
      "esbuild@$(node -p "require('./package-lock.json').packages['node_modules/esbuild'].version")"
COPY protocol/package.json protocol/
COPY protocol/src protocol/src
COPY loadtest/tsconfig.json loadtest/
COPY loadtest/k6 loadtest/k6
COPY loadtest/workloads loadtest/workloads
RUN /tools/node_modules/.bin/esbuild loadtest/k6/protocol-parts.js --bundle --format=esm \
      --platform=neutral --log-level=warning --outfile=loadtest/k6/protocol.js

# --- runtime: the scripts under /scripts, where the compose service's commands look ------------
FROM grafana/k6:1.8.1
COPY --from=bundle /app/loadtest /scripts
