import { Injectable } from '@nestjs/common';
import { Subjects, accrue, usageRange, type UsageQuery, type VolumeUsageRecord } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { VolumeUsageRepository } from './volume-usage.repository.js';

/** The caller's network volume usage in a range, per bucket and volume (GB-seconds and cost). */
@Injectable()
export class VolumeUsageHandler {
  constructor(private readonly usage: VolumeUsageRepository) {}

  @QueryHandler(Subjects.volume.usage)
  async handle(ctx: QueryContext<UsageQuery>): Promise<VolumeUsageRecord[]> {
    const { payload } = ctx;
    const { from, to } = usageRange(payload);
    const rows = await this.usage.overlapping(ctx.actor.userId, from, to);
    const intervals = rows
      .filter((row) => !payload.resourceId || row.volumeId === payload.resourceId)
      .map((row) => ({ ...row, key: row.volumeId, units: row.sizeGb }));
    return accrue(intervals, { from, to, now: new Date() }, payload.bucket).map((a) => ({
      bucket: a.bucket,
      resourceId: a.key,
      gbSeconds: a.unitSeconds,
      cost: a.cost,
    }));
  }
}
