import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  CreateApiKeyDto,
  MAX_ACTIVE_API_KEYS,
  type ApiKeyList,
  type ApiKeyView,
  type CreatedApiKey,
  type KeyRecordView,
} from '@app/contracts';
import { AccountsService, type Principal } from '../accounts/accounts.service.js';
import type { ApiKeyEntity } from '../accounts/api-key.entity.js';
import { actorOf, Auth, CurrentPrincipal, Resource } from '../auth/auth.decorators.js';
import { Operation } from '../openapi/openapi.decorators.js';

/**
 * `/v2/account/api-keys`: the signed-in user's keys and which one is asking (the web console reads it at sign-in
 * to learn its key's scope: a read key is offered no button that would fail), and a `full` key creates and revokes
 * the user's keys (the operator's keys CLI, `npm run keys`, does the same for any user). docs/adr/0029.
 */
@ApiTags('Account')
@Auth({ key: 'bearer' })
@Resource('api-keys')
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
    const keys = await this.accounts.listKeys({ userId: principal.user.id, accountId: principal.account.id });
    return {
      current: toApiKeyView(principal.key),
      apiKeys: keys.filter((key) => key.scope !== 'worker').map(toApiKeyView),
    };
  }

  @Post()
  @HttpCode(201)
  @Operation('Create an API key of the account', {
    returns: 'CreatedApiKey',
    description:
      'Only a key of scope `full` may create keys (of scope `full`, `read`, or `endpoints` with `endpointIds`). ' +
      'The answer carries the key itself (`key`) this once: only its SHA-256 is stored, and no later answer ' +
      'shows it.',
    errors: {
      400: 'endpointIds given for a scope other than endpoints, or missing for scope endpoints',
      409: `the account already has ${MAX_ACTIVE_API_KEYS} active API keys`,
    },
  })
  async create(
    @Body() dto: CreateApiKeyDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<CreatedApiKey> {
    const issued = await this.accounts.createOwnKey(
      principal,
      actorOf(principal),
      dto.scope,
      dto.name,
      dto.endpointIds,
      dto.teamId,
    );
    return { ...toRecordView(issued.record), key: issued.key };
  }

  @Delete(':apiKeyId')
  @HttpCode(204)
  @Operation('Revoke an API key of the account', {
    description:
      'Refused on every gateway replica at once. A key may revoke itself: the request that does it still ' +
      "succeeds, the next one is 401. Another user's key, a worker key or an unknown id: 404.",
  })
  revoke(@Param('apiKeyId') id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.accounts.revokeOwnKey(principal, actorOf(principal), id);
  }
}

/** A team key names its team; a key of the holder's own account, none. */
function teamOf(key: { userId: string; accountId: string }): string | null {
  return key.accountId === key.userId ? null : key.accountId;
}

function toApiKeyView(key: ApiKeyEntity): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.keyPrefix,
    // A worker key is refused by the guard before it gets here (this route is not a worker route).
    scope: key.scope === 'worker' ? 'endpoints' : key.scope,
    endpointIds: key.endpointIds,
    teamId: teamOf(key),
    createdAt: key.createdAt.toISOString(),
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}

function toRecordView(key: KeyRecordView): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scope: key.scope === 'worker' ? 'endpoints' : key.scope,
    endpointIds: key.endpointIds,
    teamId: teamOf(key),
    createdAt: key.createdAt,
    revokedAt: null,
  };
}
