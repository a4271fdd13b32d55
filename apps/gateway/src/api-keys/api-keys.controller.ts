import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { ApiKeyList, ApiKeyView } from '@app/contracts';
import { AccountsService, type Principal } from '../accounts/accounts.service.js';
import type { ApiKeyEntity } from '../accounts/api-key.entity.js';
import { Auth, CurrentPrincipal } from '../auth/auth.decorators.js';
import { Operation } from '../openapi/openapi.decorators.js';

/**
 * `/v2/account/api-keys`: the signed-in user's keys and which one is asking. The web console reads it at sign-in
 * to learn its key's scope (a read key is offered no button that would fail); keys are still issued and revoked
 * by the operator's keys CLI (`npm run keys`).
 */
@ApiTags('Account')
@Auth({ key: 'bearer' })
@Controller('v2/account/api-keys')
export class ApiKeysController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  @Operation("The account's API keys and the one of this request", {
    returns: 'ApiKeyList',
    description:
      "Never the keys themselves, only their first characters; an endpoint's worker keys are not listed.",
  })
  async list(@CurrentPrincipal() principal: Principal): Promise<ApiKeyList> {
    const keys = await this.accounts.listKeys(principal.user.id);
    return {
      current: toApiKeyView(principal.key),
      apiKeys: keys.filter((key) => key.scope !== 'worker').map(toApiKeyView),
    };
  }
}

function toApiKeyView(key: ApiKeyEntity): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.keyPrefix,
    // A worker key is refused by the guard before it gets here (this route is not a worker route).
    scope: key.scope === 'worker' ? 'endpoints' : key.scope,
    endpointIds: key.endpointIds,
    createdAt: key.createdAt.toISOString(),
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}
