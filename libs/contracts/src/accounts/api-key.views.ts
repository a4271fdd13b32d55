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
  /**
   * `full` manages everything (its holder's role allows), `read` only reads, `endpoints` only runs jobs of
   * `endpointIds`; `operator` is `full` and the deployment's operator routes (issued by the keys CLI only).
   */
  scope: 'full' | 'read' | 'endpoints' | 'operator';
  endpointIds: string[];
  /** The team the key acts for; null: its holder's own account. */
  teamId: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export interface ApiKeyList {
  /** The key of this request. */
  current: ApiKeyView;
  apiKeys: ApiKeyView[];
}
