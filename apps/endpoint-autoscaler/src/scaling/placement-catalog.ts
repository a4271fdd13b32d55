import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  type Actor,
  type DataCenterView,
  type GpuTypeView,
} from '@app/contracts';
import { QueryBus } from '@app/messaging';
import { Clock } from '../clock.js';
import type { EndpointEntity } from '../endpoints/endpoint.entity.js';

const SYSTEM: Actor = { userId: 'system:endpoint-autoscaler', kind: 'system' };
const CACHE_MS = 30_000;

/** Where an endpoint's workers may run, in the scheduler's terms. */
export interface WorkerPlacement {
  /** GPU type ids of the endpoint's tiers, tier preference first. */
  gpuTypeIds: string[];
  /** Data centers of the endpoint's regions; empty for any. */
  dataCenterIds: string[];
}

/** Turns an endpoint's GPU tiers and regions into GPU type and data center ids (the scheduler's catalog, cached). */
@Injectable()
export class PlacementCatalog {
  private cached?: { at: number; gpuTypes: GpuTypeView[]; dataCenters: DataCenterView[] };

  constructor(
    private readonly queries: QueryBus,
    private readonly clock: Clock,
  ) {}

  async placementFor(
    endpoint: Pick<EndpointEntity, 'id' | 'gpuIds' | 'locations'>,
  ): Promise<WorkerPlacement> {
    const { gpuTypes, dataCenters } = await this.catalog();
    const gpuTypeIds = endpoint.gpuIds.flatMap((tier) =>
      gpuTypes
        .filter((type) => type.tier === tier)
        .sort((a, b) => b.availability.freeGpus - a.availability.freeGpus)
        .map((type) => type.id),
    );
    if (!gpuTypeIds.length) {
      throw new DomainError(
        ErrorCode.CapacityUnavailable,
        `no GPU type of tier(s) ${endpoint.gpuIds.join(', ')} in the catalog`,
      );
    }
    const dataCenterIds = endpoint.locations.length
      ? dataCenters.filter((dc) => (endpoint.locations as string[]).includes(dc.region)).map((dc) => dc.id)
      : [];
    if (endpoint.locations.length && !dataCenterIds.length) {
      throw new DomainError(
        ErrorCode.CapacityUnavailable,
        `no data center in region(s) ${endpoint.locations.join(', ')}`,
      );
    }
    return { gpuTypeIds, dataCenterIds };
  }

  private async catalog(): Promise<{ gpuTypes: GpuTypeView[]; dataCenters: DataCenterView[] }> {
    if (this.cached && this.clock.now().getTime() - this.cached.at < CACHE_MS) return this.cached;
    const [gpuTypes, dataCenters] = await Promise.all([
      this.queries.query(Subjects.catalog.gpuTypes, {}, SYSTEM),
      this.queries.query(Subjects.catalog.dataCenters, {}, SYSTEM),
    ]);
    this.cached = { at: this.clock.now().getTime(), gpuTypes, dataCenters };
    return this.cached;
  }
}
