import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { WebhookSecretEntity } from './webhook-secret.entity.js';

/** The endpoints' webhook signing secrets (sealed). */
@Injectable()
export class WebhookSecretsRepository {
  constructor(private readonly dataSource: DataSource) {}

  find(endpointId: string): Promise<WebhookSecretEntity | null> {
    return this.dataSource.getRepository(WebhookSecretEntity).findOneBy({ endpointId });
  }

  /** The new secret becomes current; the current one, if any, becomes the previous. */
  async rotate(
    endpointId: string,
    secretSealed: string,
    at: Date,
    manager: EntityManager,
  ): Promise<WebhookSecretEntity> {
    const rows = await manager.query<WebhookSecretEntity[]>(
      `INSERT INTO queue_broker.webhook_secrets AS s (endpoint_id, secret_sealed, previous_sealed, rotated_at)
       VALUES ($1, $2, NULL, $3)
       ON CONFLICT (endpoint_id) DO UPDATE SET
         previous_sealed = s.secret_sealed, secret_sealed = EXCLUDED.secret_sealed, rotated_at = EXCLUDED.rotated_at
       RETURNING endpoint_id AS "endpointId", secret_sealed AS "secretSealed",
         previous_sealed AS "previousSealed", rotated_at AS "rotatedAt"`,
      [endpointId, secretSealed, at],
    );
    return rows[0];
  }
}
