# Backdrop's image: one image for the API and the workers (ROLE=api|worker|all), as
# deploy/kubernetes/backdrop.yaml runs it. Built as docker-compose.yml's setup builds the tree:
# `npm ci` on a glibc Node 20 (onnxruntime-node ships glibc binaries only: not Alpine), then
# `npm run build`. Build and tag: docker build -t backdrop:1.0.0 .
FROM node:20-bookworm

# tini as PID 1: it forwards SIGTERM to node and reaps the processes orphaned when an engine child
# dies (its spawner, its ffmpegs), which node as PID 1 left as zombies until the pod's pid limit
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci && npm cache clean --force
COPY . .
# dist/ belongs to `node`: `npm run admin` and `npm run migration:*` build before they run (in a pod too)
RUN npm run build \
  && mkdir -p /data \
  && chown node:node /data \
  && chown -R node:node /app/dist

# The embedded database, local storage and the converted models live under DATA_DIR: mount a volume
# there. Postgres refuses to run as root, so the image runs as the unprivileged `node` user.
ENV DATA_DIR=/data
USER node
EXPOSE 3000
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/src/main.js"]
