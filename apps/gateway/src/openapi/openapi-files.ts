import { join } from 'node:path';

/**
 * The two REST interfaces the gateway describes (service-interface.md, Versioning): `v2` under {base_url} (the
 * /v2 REST routes and the queue job and worker routes, description version 2.0.0) and `v1` under {rest_url}.
 * Each has its own committed OpenAPI 3.1.0 document, written by `npm run openapi` and served at
 * `/<interface>/openapi.json`.
 */
export const OPENAPI_INTERFACES = ['v1', 'v2'] as const;
export type OpenApiInterface = (typeof OPENAPI_INTERFACES)[number];

/** The committed document of one interface inside OPENAPI_DIR. */
export function openApiFile(dir: string, iface: OpenApiInterface): string {
  return join(dir, `openapi.${iface}.json`);
}

/** Where the gateway serves the document of one interface (real RunPod serves /v1/openapi.json too). */
export function openApiRoute(iface: OpenApiInterface): string {
  return `/${iface}/openapi.json`;
}
