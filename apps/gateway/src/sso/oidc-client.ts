import { Injectable, Logger } from '@nestjs/common';
import * as oidc from 'openid-client';
import { DomainError, ErrorCode } from '@app/contracts';
import { GatewayConfig } from '../gateway.config.js';
import type { Claims } from './sso-claims.js';

/** How long a failed discovery is remembered before the next sign-in tries again. */
const RETRY_DISCOVERY_MS = 10_000;

/**
 * The OpenID provider, through `openid-client` (authorization code flow with PKCE; it checks the ID token's
 * signature, issuer, audience, expiry and nonce, and the state). Discovery is lazy: a provider that is down
 * when the gateway starts costs sign-ins, never the gateway's start; a failure is retried after 10 s.
 */
@Injectable()
export class OidcClient {
  private readonly logger = new Logger('sso');
  private discovered?: Promise<oidc.Configuration>;
  private failedAt = 0;

  constructor(private readonly config: GatewayConfig) {}

  get enabled(): boolean {
    return this.config.OIDC_ISSUER_URL !== '';
  }

  /** The name on the console's button: OIDC_PROVIDER_NAME, else the issuer's host. */
  get providerName(): string {
    if (this.config.OIDC_PROVIDER_NAME) return this.config.OIDC_PROVIDER_NAME;
    return this.enabled ? new URL(this.config.OIDC_ISSUER_URL).hostname : '';
  }

  get issuer(): string {
    return this.config.OIDC_ISSUER_URL;
  }

  private configuration(): Promise<oidc.Configuration> {
    if (!this.enabled) {
      throw new DomainError(
        ErrorCode.NotFound,
        'single sign-on is not configured on this gateway (OIDC_ISSUER_URL)',
      );
    }
    if (this.discovered && this.failedAt && Date.now() - this.failedAt > RETRY_DISCOVERY_MS) {
      this.discovered = undefined;
    }
    this.discovered ??= this.discover().catch((error: unknown) => {
      this.failedAt = Date.now();
      this.logger.warn(
        `OpenID discovery of ${this.config.OIDC_ISSUER_URL} failed: ${(error as Error).message}`,
      );
      throw new DomainError(
        ErrorCode.DependencyUnavailable,
        'the identity provider did not answer; try again in a moment',
      );
    });
    return this.discovered;
  }

  private discover(): Promise<oidc.Configuration> {
    const issuer = new URL(this.config.OIDC_ISSUER_URL);
    const secret = this.config.OIDC_CLIENT_SECRET;
    return oidc.discovery(
      issuer,
      this.config.OIDC_CLIENT_ID,
      undefined,
      secret ? oidc.ClientSecretBasic(secret) : oidc.None(),
      // http:// is allowed by the config only for a loopback issuer (a test's or a laptop's provider).
      issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests], timeout: 10 } : { timeout: 10 },
    );
  }

  /** Where to send the browser: the provider's authorization endpoint with state, nonce and the PKCE challenge. */
  async authorizationUrl(
    redirectUri: string,
    state: string,
    nonce: string,
    codeVerifier: string,
  ): Promise<URL> {
    const configuration = await this.configuration();
    const scopes = new Set(['openid', ...this.config.OIDC_SCOPES.split(' ')]);
    return oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: [...scopes].join(' '),
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
  }

  /**
   * The callback: exchanges the code (with the PKCE verifier), has openid-client check the ID token and state, and
   * answers its claims, completed by the userinfo endpoint when the groups claim is not in the ID token (Okta's
   * and Keycloak's default). Any failure is a 401 naming what the provider or the check said.
   */
  async signIn(
    callbackUrl: URL,
    checks: { state: string; nonce: string; codeVerifier: string },
  ): Promise<Claims> {
    const configuration = await this.configuration();
    let claims: Claims;
    let accessToken: string;
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims();
      if (!idClaims) throw new Error('no ID token');
      claims = { ...idClaims };
      accessToken = tokens.access_token;
    } catch (error) {
      throw new DomainError(ErrorCode.Unauthenticated, `sign-in refused: ${(error as Error).message}`);
    }
    const groupsClaim = this.config.OIDC_GROUPS_CLAIM;
    if (claims[groupsClaim] === undefined && configuration.serverMetadata().userinfo_endpoint) {
      try {
        const info = await oidc.fetchUserInfo(configuration, accessToken, claims.sub);
        // Absent from a userinfo answer too: the user is in no group (they left the last one).
        claims = { ...info, ...claims, [groupsClaim]: info[groupsClaim] ?? [] };
      } catch (error) {
        // Groups unknown (the claim stays absent): the memberships stay as they were (SsoProvisioning).
        this.logger.warn(`userinfo of ${claims.sub} failed: ${(error as Error).message}`);
      }
    }
    return claims;
  }
}
