import { Injectable } from '@nestjs/common';
import { Subjects, type RotateWebhookSecretCommand, type WebhookSecretView } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { WebhookSecretsRepository } from '../webhook-secrets.repository.js';

/**
 * The endpoint's webhooks are signed with the secret the command carries (sealed) from now on; the one it
 * replaces keeps signing alongside for WEBHOOK_SECRET_OVERLAP_MS (webhook-sender.ts).
 */
@Injectable()
export class RotateWebhookSecretHandler {
  constructor(private readonly secrets: WebhookSecretsRepository) {}

  @CommandHandler(Subjects.job.rotateWebhookSecret)
  async handle(ctx: CommandContext<RotateWebhookSecretCommand>): Promise<WebhookSecretView> {
    const { payload, manager, now } = ctx;
    const row = await this.secrets.rotate(payload.endpointId, payload.secretSealed, now, manager);
    return {
      endpointId: row.endpointId,
      secretSealed: row.secretSealed,
      rotatedAt: new Date(row.rotatedAt).toISOString(),
    };
  }
}
