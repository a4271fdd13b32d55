import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Actor, WebhookSecret } from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { Operation } from '../openapi/openapi.decorators.js';
import { WebhookSecretsService } from './webhook-secrets.service.js';

/**
 * The secret an endpoint's webhooks are signed with (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`). Reading it takes a key that may manage the endpoint (scope `full`), as reading its workers'
 * key does: whoever holds it can forge the endpoint's webhooks.
 */
@ApiTags('Queue jobs')
@Auth({ key: 'raw-or-bearer', endpointParam: 'endpointId', access: 'write', manage: true })
@Resource('endpoints')
@Controller('v2')
export class WebhookSecretsController {
  constructor(private readonly secrets: WebhookSecretsService) {}

  @Get(':endpointId/webhook-secret')
  @Operation("Read the endpoint's webhook signing secret", {
    returns: 'WebhookSecret',
    description:
      'Drawn on first use. Needs a key with write access: the secret lets its holder forge webhooks.',
    errors: { 400: 'a load-balancing (LB) endpoint: it sends no webhooks' },
  })
  read(@Param('endpointId') endpointId: string, @CurrentActor() actor: Actor): Promise<WebhookSecret> {
    return this.secrets.read(endpointId, actor);
  }

  @Post(':endpointId/webhook-secret/rotate')
  @HttpCode(200)
  @Operation("Rotate the endpoint's webhook signing secret", {
    returns: 'WebhookSecret',
    description:
      'Webhooks are signed with the new secret from now on; the previous one adds a second signature for ' +
      'WEBHOOK_SECRET_OVERLAP_MS (24 h by default), so receivers can switch without losing a delivery.',
    errors: { 400: 'a load-balancing (LB) endpoint: it sends no webhooks' },
  })
  rotate(@Param('endpointId') endpointId: string, @CurrentActor() actor: Actor): Promise<WebhookSecret> {
    return this.secrets.rotate(endpointId, actor);
  }
}
