import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Subjects, type Actor, type WebhookSecret, type WebhookSecretView } from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';
import { SecretBox } from '@app/platform';
import { GatewayConfig } from '../gateway.config.js';
import { EndpointAccess } from './endpoint-access.js';

const KNOWN_MAX = 10_000;

/**
 * The endpoints' webhook signing secrets. The broker keeps them (it signs); the gateway draws each new one and
 * seals it before it enters the command, so neither the command stream nor the broker's table holds it in
 * plaintext, and opens it only for the endpoint's owner.
 */
@Injectable()
export class WebhookSecretsService {
  private readonly box: SecretBox;
  /** Endpoints known to have a secret: a submit with a webhook asks the broker only the first time. */
  private readonly known = new Set<string>();

  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly endpoints: EndpointAccess,
    config: GatewayConfig,
  ) {
    this.box = new SecretBox(config.REGISTRY_AUTH_KEYS);
  }

  /** The current secret, drawn now if the endpoint has none yet. */
  async read(endpointId: string, actor: Actor): Promise<WebhookSecret> {
    await this.endpoints.queueEndpoint(endpointId, actor);
    const current = await this.queries.query(Subjects.job.webhookSecret, { endpointId }, actor);
    return this.opened(current ?? (await this.draw(endpointId, actor)));
  }

  async rotate(endpointId: string, actor: Actor): Promise<WebhookSecret> {
    await this.endpoints.queueEndpoint(endpointId, actor);
    return this.opened(await this.draw(endpointId, actor));
  }

  /** Before a job with a webhook is submitted: its delivery will be signed. The caller checked the endpoint. */
  async ensure(endpointId: string, actor: Actor): Promise<void> {
    if (this.known.has(endpointId)) return;
    const current = await this.queries.query(Subjects.job.webhookSecret, { endpointId }, actor);
    if (!current) await this.draw(endpointId, actor);
    this.remember(endpointId);
  }

  private async draw(endpointId: string, actor: Actor): Promise<WebhookSecretView> {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const view = await this.commands.execute(
      Subjects.job.rotateWebhookSecret,
      { endpointId, secretSealed: this.box.seal(secret, endpointId) },
      actor,
    );
    this.remember(endpointId);
    return view;
  }

  private opened(view: WebhookSecretView): WebhookSecret {
    return {
      endpointId: view.endpointId,
      secret: this.box.open(view.secretSealed, view.endpointId),
      rotatedAt: view.rotatedAt,
    };
  }

  private remember(endpointId: string): void {
    if (this.known.size >= KNOWN_MAX) this.known.clear();
    this.known.add(endpointId);
  }
}
