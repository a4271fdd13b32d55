import { Injectable } from '@nestjs/common';
import { Subjects, type GetWebhookSecretQuery, type WebhookSecretView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { WebhookSecretsRepository } from '../webhook-secrets.repository.js';

/** The endpoint's current signing secret, still sealed (the gateway opens it for the owner), or null. */
@Injectable()
export class GetWebhookSecretHandler {
  constructor(private readonly secrets: WebhookSecretsRepository) {}

  @QueryHandler(Subjects.job.webhookSecret)
  async handle(ctx: QueryContext<GetWebhookSecretQuery>): Promise<WebhookSecretView | null> {
    const row = await this.secrets.find(ctx.payload.endpointId);
    return row
      ? { endpointId: row.endpointId, secretSealed: row.secretSealed, rotatedAt: row.rotatedAt.toISOString() }
      : null;
  }
}
