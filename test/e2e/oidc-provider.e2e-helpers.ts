import type { Server } from 'node:http';
import Provider from 'oidc-provider';

export const CLIENT_ID = 'gpucp-console';
export const CLIENT_SECRET = 'console-sso-test-secret-0123456789';

/**
 * A real OpenID provider (`oidc-provider`) in the test process, on http://127.0.0.1:<port>: one confidential client
 * (the console, authorization code with PKCE, client_secret_basic) whose callbacks are `redirectUris`, its
 * development login and consent pages (any login, any password), and people whose `groups` claim is `groups[sub]`.
 * The groups go in the ID token, as Entra and Google put theirs (Okta's and Keycloak's come from userinfo, which the
 * gateway reads when the ID token has none).
 */
export function startOidcProvider(
  port: number,
  redirectUris: string[],
  groups: Record<string, string[]>,
): Server {
  const provider = new Provider(`http://127.0.0.1:${port}`, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: redirectUris,
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: {
      openid: ['sub'],
      profile: ['preferred_username', 'name'],
      email: ['email'],
      groups: ['groups'],
    },
    cookies: { keys: ['console-sso-test-cookie-key'] },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({
        sub,
        preferred_username: sub,
        email: `${sub}@example.test`,
        groups: groups[sub] ?? [],
      }),
    }),
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
  });
  return provider.listen(port);
}
