/**
 * What a key may do:
 * - `full`: everything the user may do;
 * - `read`: only reads (GET, and GraphQL queries);
 * - `endpoints`: only the job routes of the serverless endpoints it names (`/v2/{endpoint_id}/...`);
 * - `worker`: only the worker routes (`@Auth({worker: true})`: job-take, job-done, ping, ...) of the one endpoint
 *   it names; minted by the gateway for an endpoint's workers (their RUNPOD_AI_API_KEY), revoked with it;
 * - `operator`: `full` on its holder's own account, and the deployment's operator routes (every team and user, every
 *   account's audit trail); issued only by the keys CLI.
 * A team key's rights are its scope and its holder's role in the team, both (ROLE_GRANTS).
 */
export { API_KEY_SCOPES, isApiKeyScope, type ApiKeyScope } from '@app/contracts';
import type { ApiKeyScope } from '@app/contracts';

/**
 * Whether a key of this scope may change what its user owns (create, modify, delete), and so see the secrets that
 * come with managing it (an endpoint's workers' key). Only `full`: `read` reads, `endpoints` and `worker` keys
 * only use job routes.
 */
export function scopeMayManage(scope: ApiKeyScope): boolean {
  return scope === 'full' || scope === 'operator';
}

/**
 * Whether a key of scope `holder` may hand out a key of scope `wanted`: only to a scope no wider than its own. A
 * `full` key covers `full`, `read` and `endpoints`; `worker` keys are the gateway's own (minted for an endpoint),
 * never handed out by a user; the narrower scopes cover nothing (they may not create keys at all).
 */
export function scopeCovers(holder: ApiKeyScope, wanted: ApiKeyScope): boolean {
  return scopeMayManage(holder) && wanted !== 'worker' && wanted !== 'operator';
}
