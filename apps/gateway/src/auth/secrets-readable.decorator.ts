import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { scopeMayManage } from '../accounts/api-key-scope.js';
import { httpRequestOf, type AuthenticatedRequest } from './auth.decorators.js';

/**
 * Whether the request's key may read the secrets of what its user owns (a pod's secret-looking env values): a key
 * that may manage them (`full`, scopeMayManage); a `read` key gets them masked (docs/adr/0014-edge-hardening.md).
 */
export const SecretsReadable = createParamDecorator((_: unknown, context: ExecutionContext): boolean => {
  const request = httpRequestOf<AuthenticatedRequest>(context);
  if (!request.principal) throw new Error('SecretsReadable used on a route without authentication');
  return scopeMayManage(request.principal.key.scope);
});
