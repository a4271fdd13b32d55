# One image for all five apps; each Kubernetes Deployment picks its app with
# `command: ["node", "dist/apps/<app>/server.mjs"]` (deploy/base/apps; one bundled file per app, ADR 24), the
# migration Job runs every dist/apps/<app>/migrate.mjs. Build: `docker build -t gpucp:<version> .` (deploy/README.md).
# test/deploy/dockerfile.spec.ts checks this file statically: no Docker engine runs in CI.

# --- build: dependencies, TypeScript, then drop the dev dependencies ---------------------------------------------
FROM node:24-bookworm-slim AS build
WORKDIR /app
# Manifests first, so the dependency layer is reused while only the sources change.
COPY package.json package-lock.json ./
COPY libs/config/package.json libs/config/
COPY libs/contracts/package.json libs/contracts/
COPY libs/database/package.json libs/database/
COPY libs/messaging/package.json libs/messaging/
COPY libs/observability/package.json libs/observability/
COPY libs/platform/package.json libs/platform/
COPY libs/worker-sdk/package.json libs/worker-sdk/
# `npm install` honours package-lock.json; `npm ci` refuses it, since the lock records only the platform packages
# of @swc/core that the registry mirror served when it was written (ADR 1).
RUN npm install --no-audit --no-fund
COPY tsconfig.base.json tsconfig.build.json nest-cli.json ./
COPY scripts/bundle-apps.mjs scripts/build-console.mjs scripts/
COPY scripts/lib/bundles.mjs scripts/lib/
COPY libs libs
COPY apps apps
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# --- runtime: compiled code, production dependencies, the data files the apps read -------------------------------
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
# The workspace libraries (node_modules/@app/* link here): their package.json and compiled dist/.
COPY --from=build /app/libs libs
# Files the apps open at run time, by the default paths of their config (relative to /app).
COPY --from=build /app/apps/cluster-scheduler/fleet apps/cluster-scheduler/fleet
COPY --from=build /app/apps/pod-lifecycle/local-images.json apps/pod-lifecycle/local-images.json
COPY --from=build /app/apps/pod-lifecycle/catalog-templates.json apps/pod-lifecycle/catalog-templates.json
COPY --from=build /app/apps/gateway/openapi apps/gateway/openapi
# The node image's unprivileged user, by number so Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 8080 8081 8082 8083 8084
CMD ["node", "dist/apps/gateway/server.mjs"]
