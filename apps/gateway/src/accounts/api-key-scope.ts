/**
 * What a key may do:
 * - `full`: everything the user may do;
 * - `read`: only reads (GET, and GraphQL queries);
 * - `endpoints`: only the job routes of the serverless endpoints it names (`/v2/{endpoint_id}/...`).
 */
export const API_KEY_SCOPES = ['full', 'read', 'endpoints'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export function isApiKeyScope(value: string): value is ApiKeyScope {
  return (API_KEY_SCOPES as readonly string[]).includes(value);
}
