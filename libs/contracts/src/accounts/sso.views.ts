import type { TeamRole } from './team-roles.js';

/** `GET /console/sso/config` (public): whether the console offers "Sign in with <providerName>". */
export interface SsoConfigView {
  enabled: boolean;
  providerName: string;
}

/** An account a console session may act for: the user's own (`owner`), or a team with the user's role there. */
export interface SsoAccountView {
  id: string;
  name: string;
  kind: 'user' | 'team';
  role: TeamRole;
}

/** `GET /console/sso/session`: who is signed in, the account acted for, the others, and the CSRF token. */
export interface SsoSessionView {
  user: { id: string; name: string };
  account: SsoAccountView;
  accounts: SsoAccountView[];
  /** Sent as `x-csrf-token` with every request that changes something. */
  csrfToken: string;
}
