import type { KeyRecordView, TeamMemberView, UserView } from '@app/contracts';
import type { ApiKeyEntity } from './api-key.entity.js';
import type { NamedMember } from './teams.repository.js';
import type { UserEntity } from './user.entity.js';

export function toUserView(user: UserEntity): UserView {
  return {
    id: user.id,
    name: user.name,
    rateLimitExempt: user.rateLimitExempt,
    disabled: user.disabledAt !== null,
    createdAt: user.createdAt.toISOString(),
  };
}

export function toKeyRecordView(key: ApiKeyEntity): KeyRecordView {
  return {
    id: key.id,
    userId: key.userId,
    accountId: key.accountId,
    name: key.name,
    prefix: key.keyPrefix,
    scope: key.scope,
    endpointIds: key.endpointIds,
    createdAt: key.createdAt.toISOString(),
  };
}

export function toMemberView(member: NamedMember): TeamMemberView {
  return {
    userId: member.userId,
    name: member.name,
    role: member.role,
    addedAt: new Date(member.addedAt).toISOString(),
  };
}
