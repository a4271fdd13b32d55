import type { UserApiKeyScope } from '@app/contracts';

/** What each scope may do, as the console names it. */
export const SCOPE_LABELS: Record<UserApiKeyScope, string> = {
  read: 'read only',
  full: 'full access',
  endpoints: 'job routes of some endpoints',
};
