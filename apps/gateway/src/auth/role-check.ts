import { DomainError, ErrorCode, roleMay, type AccountResource } from '@app/contracts';
import type { Principal } from '../accounts/principal.js';

/**
 * What the holder's role allows (ROLE_GRANTS); a GraphQL field that reads another resource than its operation (a
 * `myself { pods }`) checks it too, since guards run per operation.
 */
export function authorizeRole(
  principal: Principal,
  resource: AccountResource | undefined,
  access: 'read' | 'write',
): void {
  if (principal.role === 'owner' || (resource && roleMay(principal.role, resource, access))) return;
  throw new DomainError(
    ErrorCode.Forbidden,
    `your role in team ${principal.account.name} is ${principal.role}: it may not ` +
      `${access === 'read' ? 'read' : 'change'} ${resource ?? 'this'}`,
  );
}
