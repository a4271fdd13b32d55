import { Injectable } from '@nestjs/common';
import {
  Subjects,
  roundMoney,
  type Actor,
  type BillingMetadata,
  type BillingSummaryList,
  type ClusterBillingList,
  type BillingSummaryRecord,
  type BillingV1Record,
  type ComputeBilling,
  type NetworkVolumeBillingList,
  type PodBillingList,
  type ServerlessBillingList,
  type PodUsageRecord,
  type UsageExportRow,
  type UsageGrouping,
  type VolumeUsageRecord,
} from '@app/contracts';
import { QueryBus } from '@app/messaging';
import type { JsonBody } from '../edge/json-body.js';
import { forEachPodUsagePage, podUsageRecords } from '../owner-queries/usage-pages.js';
import { billingRange, type BillingQueryParams, type BillingRange } from './billing-query.js';
import {
  JsonRecords,
  podExportRow,
  toComputeBilling,
  volumeExportRow,
  withMetadata,
} from './billing.mapper.js';

const total = (record: { totalAmount: number }) => record.totalAmount;

/** Which summary column each family of pods (the owner's `family` grouping) adds to. */
const FAMILY_PART = { pod: 'podAmount', cluster: 'clusterAmount', endpoint: 'serverlessAmount' } as const;

/**
 * Billing, read from the owners' usage (pod-lifecycle meters pods, cluster members and serverless workers;
 * cluster-scheduler meters network volumes): this only shapes what they answer.
 */
@Injectable()
export class BillingService {
  constructor(private readonly queries: QueryBus) {}

  /**
   * `GET /v2/billing/pods`: the JSON text of a `PodBillingList`, written page by page (`JsonRecords`): a large
   * account's answer is several MB, and as objects it was held three times over.
   */
  pods(
    params: BillingQueryParams,
    podId: string | undefined,
    actor: Actor,
  ): Promise<JsonBody<PodBillingList>> {
    return this.computeJson(params, 'pod', podId, actor, (u) => ({
      ...toComputeBilling(u),
      podId: u.resourceId,
    }));
  }

  /** `GET /v2/billing/clusters`: the JSON text of a `ClusterBillingList`. */
  clusters(
    params: BillingQueryParams,
    clusterId: string | undefined,
    actor: Actor,
  ): Promise<JsonBody<ClusterBillingList>> {
    return this.computeJson(params, 'cluster', clusterId, actor, (u) => ({
      ...toComputeBilling(u),
      clusterId: u.resourceId,
    }));
  }

  /** `GET /v2/billing/serverless` and `/endpoints`: the JSON text of a `ServerlessBillingList`. */
  serverless(
    params: BillingQueryParams,
    endpointId: string | undefined,
    actor: Actor,
  ): Promise<JsonBody<ServerlessBillingList>> {
    return this.computeJson(params, 'endpoint', endpointId, actor, (u) => ({
      ...toComputeBilling(u),
      endpointId: u.resourceId,
    }));
  }

  async networkVolumes(
    params: BillingQueryParams,
    volumeId: string | undefined,
    actor: Actor,
  ): Promise<NetworkVolumeBillingList> {
    const range = billingRange(params, new Date());
    const usage = await this.volumeUsage(range, volumeId, actor);
    const records = usage.map((u) => ({
      time: u.bucket,
      networkVolumeId: u.resourceId,
      gbHours: Math.round((u.gbSeconds / 3600) * 1e6) / 1e6,
      amount: u.cost,
    }));
    return withMetadata(records, range, (record) => record.amount);
  }

  /**
   * Every family per bucket: what `/v2/billing` answers. The pods' owner sums its families in one read (a user's
   * history may hold thousands of pods; the summary needs a handful of numbers per bucket).
   */
  async summary(params: BillingQueryParams, actor: Actor): Promise<BillingSummaryList> {
    const range = billingRange(params, new Date());
    const [families, volumes] = await Promise.all([
      this.podUsage(range, 'family', undefined, actor),
      this.volumeUsage(range, undefined, actor),
    ]);
    const buckets = new Map<string, BillingSummaryRecord>();
    const add = (time: string, key: keyof typeof FAMILY_PART | 'storage', amount: number) => {
      const record = buckets.get(time) ?? {
        time,
        podAmount: 0,
        serverlessAmount: 0,
        clusterAmount: 0,
        storageAmount: 0,
        totalAmount: 0,
      };
      const part = key === 'storage' ? 'storageAmount' : FAMILY_PART[key];
      record[part] = roundMoney(record[part] + amount);
      record.totalAmount = roundMoney(record.totalAmount + amount);
      buckets.set(time, record);
    };
    for (const f of families) {
      add(f.bucket, f.resourceId as keyof typeof FAMILY_PART, f.computeCost + f.diskCost);
    }
    for (const v of volumes) add(v.bucket, 'storage', v.cost);
    const records = [...buckets.values()].sort((a, b) => a.time.localeCompare(b.time));
    return withMetadata(records, range, total);
  }

  /** `/v1/billing/pods|endpoints|networkvolumes`: the same records, flat. */
  async v1(family: 'pods' | 'endpoints' | 'networkvolumes', params: BillingQueryParams, actor: Actor) {
    const range = billingRange(params, new Date());
    if (family === 'networkvolumes') {
      const usage = await this.volumeUsage(range, undefined, actor);
      return usage.map((u): BillingV1Record => ({
        time: u.bucket,
        networkVolumeId: u.resourceId,
        amount: u.cost,
        timeBilledMs: Math.round(u.gbSeconds * 1000),
      }));
    }
    const grouping = family === 'pods' ? 'pod' : 'endpoint';
    const usage = await this.podUsage(range, grouping, undefined, actor);
    return usage.map((u): BillingV1Record => ({
      time: u.bucket,
      ...(family === 'pods' ? { podId: u.resourceId } : { endpointId: u.resourceId }),
      gpuTypeId: u.gpuTypeId,
      amount: roundMoney(u.computeCost + u.diskCost),
      timeBilledMs: Math.round(u.computeSeconds * 1000),
    }));
  }

  /** Every record of every family, for the export. */
  async exportRows(range: BillingRange, actor: Actor): Promise<UsageExportRow[]> {
    const [pods, clusters, serverless, volumes] = await Promise.all([
      this.podUsage(range, 'pod', undefined, actor),
      this.podUsage(range, 'cluster', undefined, actor),
      this.podUsage(range, 'endpoint', undefined, actor),
      this.volumeUsage(range, undefined, actor),
    ]);
    return [
      ...pods.map((u) => podExportRow('pod', u)),
      ...clusters.map((u) => podExportRow('cluster', u)),
      ...serverless.map((u) => podExportRow('serverless', u)),
      ...volumes.map(volumeExportRow),
    ].sort((a, b) => a.time.localeCompare(b.time) || a.family.localeCompare(b.family));
  }

  private async computeJson<R extends ComputeBilling>(
    params: BillingQueryParams,
    groupBy: Exclude<UsageGrouping, 'family'>,
    resourceId: string | undefined,
    actor: Actor,
    toRecord: (usage: PodUsageRecord) => R,
  ): Promise<JsonBody<{ records: R[]; metadata: BillingMetadata }>> {
    const range = billingRange(params, new Date());
    const records = new JsonRecords<R>(total);
    const query = { ...range, groupBy, ...(resourceId ? { resourceId } : {}) };
    await forEachPodUsagePage(this.queries, query, actor, (page) => records.add(page.map(toRecord)));
    return records.body(range);
  }

  private podUsage(
    range: BillingRange,
    groupBy: UsageGrouping,
    resourceId: string | undefined,
    actor: Actor,
  ): Promise<PodUsageRecord[]> {
    return podUsageRecords(this.queries, { ...range, groupBy, ...(resourceId ? { resourceId } : {}) }, actor);
  }

  private volumeUsage(
    range: BillingRange,
    resourceId: string | undefined,
    actor: Actor,
  ): Promise<VolumeUsageRecord[]> {
    return this.queries.query(
      Subjects.volume.usage,
      { ...range, ...(resourceId ? { resourceId } : {}) },
      actor,
    );
  }
}
