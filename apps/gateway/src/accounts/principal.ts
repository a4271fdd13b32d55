import type { ApiKeyEntity } from './api-key.entity.js';
import type { UserEntity } from './user.entity.js';

/** Who a request is: the user and the key it presented. */
export interface Principal {
  user: UserEntity;
  key: ApiKeyEntity;
}
