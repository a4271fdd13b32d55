import type { TeamRole } from '@app/contracts';
import type { Membership } from './sso-claims.js';

/**
 * What single sign-on reads of the accounts: the accounts feature's users and teams, which its commands write
 * (sso-directory.repository.ts reads them through its repositories).
 */
export abstract class SsoDirectory {
  /** The user a provider's subject signed in as before (`iss#sub`), or null on a first sign-in. */
  abstract userBySubject(ssoSubject: string): Promise<{ id: string; name: string } | null>;

  abstract teamByName(name: string): Promise<{ id: string; name: string } | null>;

  /** The user's teams and role in each, by team name. */
  abstract membershipsOf(userId: string): Promise<Membership[]>;

  /** The user's role in the team; null when not a member (or no such team). */
  abstract roleIn(userId: string, teamId: string): Promise<TeamRole | null>;
}
