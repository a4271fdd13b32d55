import type { ApiKeyView, UserApiKeyScope } from '@app/contracts';

/** What each scope may do, as the console names it. */
export const SCOPE_LABELS: Record<UserApiKeyScope, string> = {
  read: 'read only',
  full: 'full access',
  endpoints: 'job routes of some endpoints',
};

/** How a listed key's scope reads: the scopes a user may choose, and the operators' (made by the keys CLI only). */
export const LISTED_SCOPE_LABELS: Record<ApiKeyView['scope'], string> = {
  ...SCOPE_LABELS,
  operator: 'operator (every team and user)',
};
