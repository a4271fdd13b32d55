import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { MetricsRepository } from '../metrics/metrics.repository.js';
import { RollupDeltas } from '../metrics/rollup-deltas.js';
import { WebhookDeliveryEntity } from './webhook-delivery.entity.js';

/** A delivery claimed for one attempt, with its endpoint's signing secrets (sealed; null: none yet). */
export interface DueDelivery {
  id: string;
  jobId: string;
  endpointId: string | null;
  url: string;
  body: unknown;
  attempts: number;
  secretSealed: string | null;
  previousSealed: string | null;
  rotatedAt: Date | null;
}

/** The webhook outbox: claimed with SKIP LOCKED and a lease, so replicas share it. */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly metrics: MetricsRepository,
  ) {}

  async claim(limit: number, leaseMs: number): Promise<DueDelivery[]> {
    const [rows] = await this.dataSource.query<[DueDelivery[], number]>(
      `UPDATE queue_broker.webhook_deliveries d SET locked_until = now() + $1 * interval '1 millisecond'
       WHERE id IN (
         SELECT id FROM queue_broker.webhook_deliveries
         WHERE delivered_at IS NULL AND gave_up_at IS NULL AND next_attempt_at <= now()
           AND (locked_until IS NULL OR locked_until < now())
         ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING d.id, d.job_id AS "jobId", d.endpoint_id AS "endpointId", d.url, d.body, d.attempts,
         (SELECT s.secret_sealed FROM queue_broker.webhook_secrets s WHERE s.endpoint_id = d.endpoint_id)
           AS "secretSealed",
         (SELECT s.previous_sealed FROM queue_broker.webhook_secrets s WHERE s.endpoint_id = d.endpoint_id)
           AS "previousSealed",
         (SELECT s.rotated_at FROM queue_broker.webhook_secrets s WHERE s.endpoint_id = d.endpoint_id)
           AS "rotatedAt"`,
      [leaseMs, limit],
    );
    return rows;
  }

  /** Delivered at `at`; the endpoint's metrics count it in the same transaction. */
  async delivered(row: Pick<DueDelivery, 'id' | 'endpointId'>, attempts: number, at: Date): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager
        .getRepository(WebhookDeliveryEntity)
        .update(row.id, { attempts, deliveredAt: at, lockedUntil: null });
      await this.count(row.endpointId, at, 'delivered', manager);
    });
  }

  /** A failed attempt at `at`: tried again at `retryAt`, or given up when that is null. */
  async failed(
    row: Pick<DueDelivery, 'id' | 'endpointId'>,
    attempts: number,
    error: string,
    at: Date,
    retryAt: Date | null,
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.getRepository(WebhookDeliveryEntity).update(row.id, {
        attempts,
        lastError: error.slice(0, 1000),
        lockedUntil: null,
        ...(retryAt ? { nextAttemptAt: retryAt } : { gaveUpAt: at }),
      });
      await this.count(row.endpointId, at, retryAt ? 'failed' : 'gaveUp', manager);
    });
  }

  private async count(
    endpointId: string | null,
    at: Date,
    outcome: 'delivered' | 'failed' | 'gaveUp',
    manager: EntityManager,
  ): Promise<void> {
    if (!endpointId) return;
    const deltas = new RollupDeltas();
    deltas.webhook(endpointId, at, outcome);
    await this.metrics.add(deltas, manager);
  }
}
