import { Injectable } from '@nestjs/common';
import type { PodStatus } from '@app/contracts';
import type { EntityManager } from 'typeorm';
import type { PodEntity } from '../pod.entity.js';
import type { PodUsageKind } from './pod-usage.entity.js';
import { PodUsageRepository } from './pod-usage.repository.js';
import { accrues, intervalRate, usageChanges } from './pod-usage.rules.js';

/**
 * Meters pods from their status changes (ADR 21): called in the transaction that writes the change, at the
 * command's time, so a replay writes the same intervals. At most one write per interval opened or closed.
 */
@Injectable()
export class PodUsage {
  constructor(private readonly usage: PodUsageRepository) {}

  /** The pod moved from `previous` (null: it was just created) to its current status at `at`. */
  async statusChanged(
    pod: PodEntity,
    previous: PodStatus | null,
    at: Date,
    manager: EntityManager,
  ): Promise<void> {
    const { open, close } = usageChanges(previous, pod.status);
    for (const kind of close) await this.usage.close(pod.id, kind, at, manager);
    for (const kind of open) await this.open(pod, kind, at, manager);
  }

  /** The pod's container disk changed size: its disk interval ends and one at the new size starts. */
  async diskResized(pod: PodEntity, at: Date, manager: EntityManager): Promise<void> {
    if (!accrues('disk', pod.status)) return;
    await this.usage.close(pod.id, 'disk', at, manager);
    await this.open(pod, 'disk', at, manager);
  }

  private open(pod: PodEntity, kind: PodUsageKind, at: Date, manager: EntityManager): Promise<void> {
    return this.usage.open(
      {
        podId: pod.id,
        kind,
        startedAt: at,
        ownerId: pod.ownerId,
        clusterId: pod.clusterId,
        endpointId: pod.endpointId,
        gpuTypeId: pod.gpuTypeId,
        ...intervalRate(pod, kind),
      },
      manager,
    );
  }
}
