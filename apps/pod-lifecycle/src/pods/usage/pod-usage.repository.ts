import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { UsageBucket } from '@app/contracts';
import type { PodUsageReader } from '../../spend/pod-usage.reader.js';
import { PodUsageEntity, type PodUsageKind } from './pod-usage.entity.js';

/** An interval as the reads need it: the entity's fields, without the ORM's hydration (ADR 21). */
export type PodUsageRow = Pick<
  PodUsageEntity,
  | 'podId'
  | 'kind'
  | 'clusterId'
  | 'endpointId'
  | 'gpuTypeId'
  | 'units'
  | 'startedAt'
  | 'endedAt'
  | 'ratePerHr'
>;

/** What a user's pods of one family (standalone pods, cluster members, serverless workers) accrued in a bucket. */
export interface FamilyTotalRow {
  family: 'pod' | 'cluster' | 'endpoint';
  kind: PodUsageKind;
  bucketMs: number;
  seconds: number;
  unitSeconds: number;
  cost: number;
}

const BUCKET_SECONDS: Record<UsageBucket, number> = { hour: 3600, day: 86_400 };

/** pod_usage: one insert or update per interval opened or closed; reads are one indexed range per owner. */
@Injectable()
export class PodUsageRepository implements PodUsageReader {
  constructor(private readonly dataSource: DataSource) {}

  private get table(): string {
    const { schema, tableName } = this.dataSource.getMetadata(PodUsageEntity);
    return `"${schema}"."${tableName}"`;
  }

  /** Opens an interval at `row.startedAt` (one closed at the same instant is reopened rather than duplicated). */
  async open(row: Omit<PodUsageEntity, 'endedAt'>, manager: EntityManager): Promise<void> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(PodUsageEntity)
      .values({ ...row, endedAt: null })
      .orUpdate(['ended_at', 'rate_per_hr', 'units'], ['pod_id', 'kind', 'started_at'])
      .execute();
  }

  /** Closes the pod's open interval of `kind` at `at` (never before it started). */
  async close(podId: string, kind: PodUsageKind, at: Date, manager: EntityManager): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(PodUsageEntity)
      .set({ endedAt: () => 'GREATEST(started_at, :at)' })
      .where('pod_id = :podId AND kind = :kind AND ended_at IS NULL', { podId, kind, at })
      .execute();
  }

  /**
   * The owner's intervals that overlap `[from, to)`, in start order. Plain rows: a user with thousands of pods in a
   * month reads tens of thousands of them, and the ORM's hydration cost more than the query.
   */
  async overlapping(ownerId: string, from: Date, to: Date): Promise<PodUsageRow[]> {
    const rows: {
      pod_id: string;
      kind: PodUsageKind;
      cluster_id: string | null;
      endpoint_id: string | null;
      gpu_type_id: string | null;
      units: number;
      started_at: Date;
      ended_at: Date | null;
      rate_per_hr: number;
    }[] = await this.dataSource.query(
      `SELECT pod_id, kind, cluster_id, endpoint_id, gpu_type_id, units, started_at, ended_at,
              rate_per_hr::float8 AS rate_per_hr
         FROM ${this.table}
        WHERE owner_id = $1 AND started_at < $3 AND (ended_at IS NULL OR ended_at > $2)
        ORDER BY started_at, pod_id, kind`,
      [ownerId, from, to],
    );
    return rows.map((r) => ({
      podId: r.pod_id,
      kind: r.kind,
      clusterId: r.cluster_id,
      endpointId: r.endpoint_id,
      gpuTypeId: r.gpu_type_id,
      units: r.units,
      startedAt: r.started_at,
      endedAt: r.ended_at,
      ratePerHr: r.rate_per_hr,
    }));
  }

  /**
   * The owner's accrual in `[from, until)` summed per UTC bucket, family and kind, in SQL: what a summary needs, in
   * at most buckets × 3 × 2 rows however many pods the owner ran. Open intervals accrue until `until` (the range's
   * end or now, whichever is earlier), as `accrue` does.
   */
  async familyTotals(
    ownerId: string,
    from: Date,
    until: Date,
    bucket: UsageBucket,
  ): Promise<FamilyTotalRow[]> {
    const rows: {
      family: FamilyTotalRow['family'];
      kind: PodUsageKind;
      bucket_ms: number;
      seconds: number;
      unit_seconds: number;
      cost: number;
    }[] = await this.dataSource.query(
      // In float seconds since the epoch, buckets numbered k (a UTC hour or day starts at k × step: epoch time has
      // no leap seconds), as accrue() cuts them: Postgres' numeric and time-zone arithmetic cost twice as much.
      `WITH u AS (
         SELECT kind, units, rate_per_hr::float8 / 3600 AS rate_per_s,
                CASE WHEN cluster_id IS NOT NULL THEN 'cluster'
                     WHEN endpoint_id IS NOT NULL THEN 'endpoint' ELSE 'pod' END AS family,
                date_part('epoch', GREATEST(started_at, $2)) AS s,
                date_part('epoch', LEAST(COALESCE(ended_at, $3), $3)) AS e
           FROM ${this.table}
          WHERE owner_id = $1 AND started_at < $3 AND (ended_at IS NULL OR ended_at > $2)
       ), slices AS (
         SELECT family, kind, units, rate_per_s, k,
                LEAST(e, (k + 1) * $4::float8) - GREATEST(s, k * $4::float8) AS seconds
           FROM u, generate_series(floor(s / $4::float8)::bigint, ceil(e / $4::float8)::bigint - 1) k
          WHERE e > s
       )
       SELECT family, kind, k * $4::float8 * 1000 AS bucket_ms, sum(seconds) AS seconds,
              sum(seconds * units) AS unit_seconds, sum(seconds * rate_per_s) AS cost
         FROM slices
        WHERE seconds > 0
        GROUP BY k, family, kind
        ORDER BY k, family, kind`,
      [ownerId, from, until, BUCKET_SECONDS[bucket]],
    );
    return rows.map((r) => ({
      family: r.family,
      kind: r.kind,
      bucketMs: r.bucket_ms,
      seconds: r.seconds,
      unitSeconds: r.unit_seconds,
      cost: r.cost,
    }));
  }
}
