import { PreemptionEntity } from './quotas/preemption.entity.js';
import { QuotaSampleEntity } from './quotas/quota-sample.entity.js';
import { QuotaEntity } from './quotas/quota.entity.js';
import { MESSAGING_ENTITIES, type AppDataSourceSpec } from '@app/database';
import { CpuTypeEntity } from './catalog/cpu-type.entity.js';
import { DataCenterEntity } from './catalog/data-center.entity.js';
import { FleetLoadEntity } from './catalog/fleet-load.entity.js';
import { GpuTypeEntity } from './catalog/gpu-type.entity.js';
import { HostEntity } from './catalog/host.entity.js';
import { StoragePriceEntity } from './catalog/storage-price.entity.js';
import { ClusterMemberEntity } from './clusters/cluster-member.entity.js';
import { ClusterEntity } from './clusters/cluster.entity.js';
import { MIGRATIONS } from './migrations/index.js';
import { SCHEMA } from './schema.js';
import { HostPortEntity } from './placement/host-port.entity.js';
import { ReservationEntity } from './placement/reservation.entity.js';
import { NetworkVolumeEntity } from './volumes/network-volume.entity.js';
import { VolumeUsageEntity } from './volumes/usage/volume-usage.entity.js';

/** cluster-scheduler owns the `cluster_scheduler` schema; nobody else writes it. */
export const DATA_SOURCE_SPEC: AppDataSourceSpec = {
  schema: SCHEMA,
  entities: [
    ...MESSAGING_ENTITIES,
    GpuTypeEntity,
    CpuTypeEntity,
    DataCenterEntity,
    HostEntity,
    FleetLoadEntity,
    StoragePriceEntity,
    ReservationEntity,
    HostPortEntity,
    ClusterEntity,
    ClusterMemberEntity,
    NetworkVolumeEntity,
    VolumeUsageEntity,
    QuotaEntity,
    PreemptionEntity,
    QuotaSampleEntity,
  ],
  migrations: MIGRATIONS,
};
