/** A route of RunPod's REST API (as @runpod/mcp-server calls it) that a self-hosted deployment does not offer. */
export interface NotOfferedRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** Nest's path syntax (`:id`). */
  path: string;
  /** The handler's name, RunPod's operationId: also the OpenAPI operation's. */
  operation: string;
  feature: string;
  reason: string;
}

const ECR = 'ECR delegations';
const ECR_REASON =
  "they let RunPod's own AWS account pull from your Amazon ECR; here images are pulled with a registry " +
  'credential of yours (POST /v2/registries)';
const BUILDS = 'GitHub builds';
const BUILDS_REASON =
  "images are built from a GitHub repository by RunPod's build service, which a self-hosted deployment has not: " +
  'build and push the image yourself, then set `image` or `templateId`';
const RELEASES = 'endpoint releases';
const RELEASES_REASON =
  "the release history of RunPod's GitHub and Hub deployments; here an endpoint's `version` counts its updates " +
  'and workers take the new settings as they are replaced';

/**
 * The one table of routes not offered. Each answers 501 problem+json with type NOT_OFFERED_TYPE, naming the
 * feature and why. 501 is HTTP's own meaning (RFC 9110 §15.6.2: the server does not support the functionality
 * the request needs), where 404 would read as an unknown id and send a client looking for a typo. The routes are
 * real routes, so `/v2/registries/delegations` is never read as a registry id, and are authenticated like the
 * rest: a missing key is still 401.
 */
export const NOT_OFFERED_ROUTES: readonly NotOfferedRoute[] = [
  {
    method: 'GET',
    path: 'v2/registries/delegations',
    operation: 'listDelegations',
    feature: ECR,
    reason: ECR_REASON,
  },
  {
    method: 'POST',
    path: 'v2/registries/delegations',
    operation: 'createDelegation',
    feature: ECR,
    reason: ECR_REASON,
  },
  {
    method: 'DELETE',
    path: 'v2/registries/delegations/:id',
    operation: 'revokeDelegation',
    feature: ECR,
    reason: ECR_REASON,
  },
  {
    method: 'GET',
    path: 'v2/serverless/:endpointId/releases',
    operation: 'listEndpointReleases',
    feature: RELEASES,
    reason: RELEASES_REASON,
  },
  {
    method: 'GET',
    path: 'v2/serverless/:endpointId/builds',
    operation: 'listEndpointBuilds',
    feature: BUILDS,
    reason: BUILDS_REASON,
  },
  {
    method: 'GET',
    path: 'v2/serverless/:endpointId/builds/:buildId',
    operation: 'getEndpointBuild',
    feature: BUILDS,
    reason: BUILDS_REASON,
  },
  {
    method: 'GET',
    path: 'v2/serverless/:endpointId/builds/:buildId/logs',
    operation: 'getEndpointBuildLogs',
    feature: BUILDS,
    reason: BUILDS_REASON,
  },
];

/** The detail of a not-offered answer: the feature, that it is not offered, and why. */
export function notOfferedDetail(route: Pick<NotOfferedRoute, 'feature' | 'reason'>): string {
  return `${route.feature} are not offered by a self-hosted deployment: ${route.reason}`;
}
