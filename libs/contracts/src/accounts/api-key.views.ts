/**
 * `GET /v2/account/api-keys`: the signed-in user's API keys (never the secrets, only their first characters), and
 * which of them made the request, so a client (the web console) knows what its key may do before it offers a
 * button. Worker keys (minted for an endpoint's workers) are the endpoint's, not listed.
 */
export interface ApiKeyView {
  id: string;
  name: string;
  /** The first characters of the key, to recognise it. */
  prefix: string;
  /** `full` manages everything, `read` only reads, `endpoints` only runs jobs of `endpointIds`. */
  scope: 'full' | 'read' | 'endpoints';
  endpointIds: string[];
  createdAt: string;
  revokedAt: string | null;
}

export interface ApiKeyList {
  /** The key of this request. */
  current: ApiKeyView;
  apiKeys: ApiKeyView[];
}
