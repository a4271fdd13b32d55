import type { TeamRole } from '@app/contracts';
import type { ApiKeyEntity } from './api-key.entity.js';
import type { UserEntity } from './user.entity.js';

/** The account a request acts for: the user's own, or a team the user is a member of. */
export interface AccountRef {
  id: string;
  name: string;
  kind: 'user' | 'team';
}

/**
 * Who a request is: the user behind it, the key it presented, the account that key acts for and the user's role
 * there (`owner` on their own account). What the request may do is the key's scope and the role, both.
 */
export interface Principal {
  user: UserEntity;
  key: ApiKeyEntity;
  account: AccountRef;
  role: TeamRole;
}
