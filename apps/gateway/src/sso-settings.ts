import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsInt,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  Validate,
  ValidateIf,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { BaseConfig } from '@app/config';
import { TEAM_ROLES } from '@app/contracts';

/**
 * `group=team:role` pairs, comma-separated: group names of the provider (no `=` or `,`), team names as accounts
 * are named, the roles of TEAM_ROLES. Parsed by sso/sso-claims.ts.
 */
const GROUP_TEAMS_PATTERN = new RegExp(
  `^$|^[^=,\\s][^=,]*=[A-Za-z0-9._@-]{1,64}:(${TEAM_ROLES.join('|')})(,[^=,\\s][^=,]*=[A-Za-z0-9._@-]{1,64}:(${TEAM_ROLES.join('|')}))*$`,
);

/** http:// only to a loopback provider (a test's, a laptop's): anywhere else the tokens would cross in clear. */
@ValidatorConstraint({ name: 'loopbackOrHttps' })
class LoopbackOrHttps implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'string' || value === '') return true;
    try {
      const url = new URL(value);
      return url.protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
    } catch {
      return false;
    }
  }

  defaultMessage(): string {
    return 'OIDC_ISSUER_URL must be https:// (http:// only for localhost, 127.0.0.1 or [::1])';
  }
}

/** The gateway's settings of the console's single sign-on; GatewayConfig extends it. */
export class SsoConfig extends BaseConfig {
  // Single sign-on for the web console (docs/adr/0036-console-single-sign-on.md, docs/operations.md). Without
  // OIDC_ISSUER_URL the console signs in with API keys only and the /console/sso routes answer 404.

  /** The OpenID provider's issuer (its discovery document is `<issuer>/.well-known/openid-configuration`). */
  @ValidateIf((c: SsoConfig) => c.OIDC_ISSUER_URL !== '')
  @IsUrl(
    { require_tld: false, protocols: ['https', 'http'], require_protocol: true },
    { message: 'OIDC_ISSUER_URL must be an https:// URL (http:// only on loopback) or empty' },
  )
  @Validate(LoopbackOrHttps)
  OIDC_ISSUER_URL = '';

  /** The client id registered at the provider for this console (needed with OIDC_ISSUER_URL). */
  @ValidateIf((c: SsoConfig) => c.OIDC_ISSUER_URL !== '')
  @Matches(/^\S{1,256}$/, { message: 'OIDC_CLIENT_ID is needed with OIDC_ISSUER_URL (1-256 characters)' })
  OIDC_CLIENT_ID = '';

  /** Its secret (client_secret_basic); empty: a public client, authenticated by PKCE alone. */
  @IsString()
  OIDC_CLIENT_SECRET = '';

  /**
   * Where the provider sends the browser back: `https://<console host>/console/sso/callback`, registered at the
   * provider. Empty: derived from each request's Host (and X-Forwarded-Proto); set it behind a proxy.
   */
  @ValidateIf((c: SsoConfig) => c.OIDC_REDIRECT_URL !== '')
  @Matches(/^https?:\/\/[^\s/]+\/console\/sso\/callback$/, {
    message: 'OIDC_REDIRECT_URL must be http(s)://<host>/console/sso/callback or empty',
  })
  OIDC_REDIRECT_URL = '';

  /** Scopes asked for (space-separated); `openid` is always among them. */
  @Matches(/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/, {
    message: 'OIDC_SCOPES must be scope names separated by single spaces',
  })
  OIDC_SCOPES = 'openid profile email';

  /** The claim (ID token or userinfo) listing the user's groups at the provider. */
  @Matches(/^[\w:./-]{1,128}$/, { message: 'OIDC_GROUPS_CLAIM must be a claim name' })
  OIDC_GROUPS_CLAIM = 'groups';

  /**
   * Provider groups → team memberships: `group=team:role[,group=team:role...]`, e.g.
   * `ml-research=research:dev,platform=platform:admin`. Each sign-in makes the user's memberships of the teams
   * named here what their groups say (the highest role when several groups name one team); other teams are left
   * alone. Empty: no team is managed by sign-in.
   */
  @Matches(GROUP_TEAMS_PATTERN, {
    message:
      'OIDC_GROUP_TEAMS must be group=team:role pairs separated by commas (roles: ' +
      TEAM_ROLES.join(', ') +
      ')',
  })
  OIDC_GROUP_TEAMS = '';

  /** The name on the console's "Sign in with …" button; empty: the issuer's host name. */
  @Matches(/^[^<>]{0,64}$/, { message: 'OIDC_PROVIDER_NAME must be at most 64 characters without < or >' })
  OIDC_PROVIDER_NAME = '';

  /**
   * Session cookies marked Secure (and named with the `__Host-` prefix). Leave it on: only a console reached over
   * plain http (a laptop's http://127.0.0.1) needs false, since a browser neither keeps nor sends Secure cookies
   * for a non-secure origin other than localhost.
   */
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'SSO_COOKIE_SECURE must be true or false' })
  SSO_COOKIE_SECURE = true;

  /** A console session ends this long after sign-in, used or not. */
  @IsInt()
  @Min(60_000)
  @Max(30 * 24 * 3_600_000)
  @Type(() => Number)
  SSO_SESSION_ABSOLUTE_MS = 12 * 3_600_000;

  /** ... and this long after its last request. */
  @IsInt()
  @Min(60_000)
  @Max(30 * 24 * 3_600_000)
  @Type(() => Number)
  SSO_SESSION_IDLE_MS = 3_600_000;

  /**
   * How long a replica trusts a session it read from the database. A sign-out reaches every replica at once on
   * core NATS; this bounds how long a replica that missed that message still admits the session.
   */
  @IsInt()
  @Min(0)
  @Max(60_000)
  @Type(() => Number)
  SSO_SESSION_CACHE_MS = 5_000;
}
