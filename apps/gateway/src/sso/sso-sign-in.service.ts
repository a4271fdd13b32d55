import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode } from '@app/contracts';
import { ConsoleSessionsRepository } from './console-sessions.repository.js';
import { ConsoleSessions } from './console-sessions.service.js';
import { OidcClient } from './oidc-client.js';
import { loginParameters, newSecret, secretHash } from './session-cookies.js';
import { SsoLoginEntity } from './sso-login.entity.js';
import { SsoProvisioning } from './sso-provisioning.js';

/** How long the provider may keep the user (typing a password, a second factor) before the sign-in is void. */
export const LOGIN_TTL_MS = 10 * 60_000;

/** A console route to come back to: `#/` and the route's letters only, so it cannot point anywhere else. */
function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && /^#\/[A-Za-z0-9/_-]{0,200}$/.test(value) ? value : '';
}

/**
 * The two legs of a sign-in. `start` keeps only the SHA-256 of a fresh secret (which goes to the browser in a
 * short-lived cookie) and sends the browser to the provider with the state, nonce and PKCE challenge derived from
 * it; `finish` takes that row back once (a replayed callback finds nothing), has openid-client check the answer,
 * provisions the user and opens a session.
 */
@Injectable()
export class SsoSignIn {
  constructor(
    private readonly oidc: OidcClient,
    private readonly logins: ConsoleSessionsRepository,
    private readonly provisioning: SsoProvisioning,
    private readonly sessions: ConsoleSessions,
  ) {}

  async start(redirectUri: string, returnTo: unknown): Promise<{ secret: string; url: URL }> {
    const secret = newSecret();
    const { state, nonce, codeVerifier } = loginParameters(secret);
    const url = await this.oidc.authorizationUrl(redirectUri, state, nonce, codeVerifier);
    const now = new Date();
    await this.logins.insertLogin(
      Object.assign(new SsoLoginEntity(), {
        idHash: secretHash(secret),
        returnTo: safeReturnTo(returnTo),
        expiresAt: new Date(now.getTime() + LOGIN_TTL_MS),
      }),
      now,
    );
    return { secret, url };
  }

  async finish(callbackUrl: URL, secret: string | null): Promise<{ sessionId: string; returnTo: string }> {
    const login = secret ? await this.logins.takeLogin(secretHash(secret), new Date()) : null;
    if (!secret || !login) {
      throw new DomainError(
        ErrorCode.Unauthenticated,
        'this sign-in expired or was already used (or cookies are blocked): start again from the console',
      );
    }
    const claims = await this.oidc.signIn(callbackUrl, loginParameters(secret));
    const user = await this.provisioning.provision(
      typeof claims.iss === 'string' ? claims.iss : this.oidc.issuer,
      claims,
    );
    return { sessionId: await this.sessions.create(user.id), returnTo: login.returnTo };
  }
}
