import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  DomainError,
  ErrorCode,
  PodStatus,
  Subjects,
  deriveId,
  priorityRank,
  type ClusterCreatedEvent,
  type ClusterView,
  type CreateClusterCommand,
} from '@app/contracts';
import { CommandHandler, QueryBus, checkSpendLimit, type CommandContext } from '@app/messaging';
import { CatalogChecks } from '../../catalog/catalog.checks.js';
import { CatalogRepository } from '../../catalog/catalog.repository.js';
import type { GpuTypeEntity } from '../../catalog/gpu-type.entity.js';
import { ClusterSchedulerConfig } from '../../cluster-scheduler.config.js';
import { formatCidr, memberAddress } from '../../overlay/overlay.js';
import { PlacementApplier, type AppliedPlacement } from '../../placement/placement.applier.js';
import type { NetworkVolumeEntity } from '../../volumes/network-volume.entity.js';
import { ClusterMemberEntity } from '../cluster-member.entity.js';
import { ClusterEntity, type ClusterMounts } from '../cluster.entity.js';
import { memberSpec, toClusterView } from '../cluster.mapper.js';
import { clusterEnv, memberOwnEnv, memberPorts, memberRole } from '../cluster-topology.js';
import { ClustersRepository } from '../clusters.repository.js';

/** NATS refuses messages over its max_payload (1 MB by default); the created event must stay below. */
const MAX_EVENT_BYTES = 900 * 1024;

/** What the promise settles with: its error, or (when it resolves) its value; never a rejection. */
function settled<T>(promise: Promise<T>): Promise<T | Error> {
  return promise.catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
}

function badRequest(message: string): DomainError {
  return new DomainError(ErrorCode.BadRequest, message);
}

function invalid(error: string): DomainError {
  return new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [error]);
}

/**
 * `cluster.cmd.create`: checks what the DTO cannot (catalog ids, maxCount, the volume), then has the
 * PlacementApplier place every pod in one data center and take the GPUs, ports, a VXLAN id and a CIDR in one
 * savepoint (planned again if a concurrent create wins a race), recording the cluster and its members in it, and
 * emits `cluster.evt.created` for pod-lifecycle. Any failure rolls the whole command back: nothing is left reserved.
 */
@Injectable()
export class CreateClusterHandler {
  private readonly logger = new Logger('clusters');
  constructor(
    private readonly clusters: ClustersRepository,
    private readonly placement: PlacementApplier,
    private readonly checks: CatalogChecks,
    private readonly catalog: CatalogRepository,
    private readonly config: ClusterSchedulerConfig,
    private readonly queries: QueryBus,
  ) {}

  @CommandHandler(Subjects.cluster.create)
  async handle(ctx: CommandContext<CreateClusterCommand>): Promise<ClusterView> {
    const { envelope, payload, manager } = ctx;
    const ownerId = envelope.actor.userId;
    const { compute } = payload;
    const startSsh = payload.startSsh ?? false;
    const startJupyter = payload.startJupyter ?? false;
    const sshKeys = payload.sshPublicKeys ?? [];

    if (payload.mounts?.persistent && payload.mounts.network !== undefined) {
      throw badRequest('mounts may set persistent or network, not both');
    }
    if (payload.mounts?.network?.length === 0) {
      throw badRequest('mounts.network must hold one mount when it is set');
    }
    if (startSsh && !sshKeys.length) {
      throw badRequest(
        'startSsh needs an SSH public key on your account: add one with POST /v1/user/ssh-keys',
      );
    }
    const gpuType = await this.checks.gpuPodRequest(
      {
        field: 'compute.gpuTypeId',
        id: compute.gpuTypeId,
        countField: 'compute.gpuCountPerPod',
        count: compute.gpuCountPerPod,
      },
      { field: 'dataCenterIds', ids: payload.dataCenterIds ?? [] },
      manager,
    );
    const dataCenterIds = [...new Set(payload.dataCenterIds ?? [])];
    const volume = await this.networkVolume(payload, ownerId, dataCenterIds, manager);
    // Last of the checks: new GPU work is refused once the owner's monthly spend limit is reached (402), counted
    // up to the command's time by pod-lifecycle, which meters it (docs/adr/0023-spend-limits.md). The question goes
    // to pod-lifecycle while the placement runs, and its answer is awaited before anything else is answered.
    const spendChecked = settled(checkSpendLimit(this.queries, envelope, 'cluster create', this.logger));

    const clusterId = deriveId(envelope.commandId);
    const ports = memberPorts(payload.ports ?? [], startSsh, startJupyter);
    const placing = this.placement.apply(
      manager,
      {
        ownerId,
        clusterId,
        podIds: Array.from({ length: compute.podCount }, (_, rank) =>
          deriveId(envelope.commandId, `pod/${rank}`),
        ),
        gpuTypeId: gpuType.id,
        gpusPerPod: compute.gpuCountPerPod,
        cpuTypeId: null,
        ports,
        dataCenterIds,
        regions: [],
        hostId: null,
        volume,
        createdAt: ctx.now,
        overlay: true,
        priority: priorityRank(payload.priority),
        interruptible: false,
        asker: { ctx, workloadId: clusterId },
        noCapacity: (considered) =>
          this.noCapacity(gpuType, compute.podCount, compute.gpuCountPerPod, considered),
      },
      (applied, savepoint) => this.record(ctx, savepoint, applied, { clusterId, ports, gpuType, volume }),
    );
    // The spend refusal comes first, whatever the placement found (no capacity, say), as when it was asked first.
    const [spendError, placed] = await Promise.all([spendChecked, settled(placing)]);
    if (spendError) throw spendError;
    if (placed instanceof Error) throw placed;
    const { cluster, members } = placed.recorded!;

    const rated = { gpuTypeId: gpuType.id, gpuCount: compute.gpuCountPerPod, cpuTypeId: null };
    const rates = await this.catalog.rates({ ...rated, hostId: members[0].hostId }, manager);
    const event: ClusterCreatedEvent = {
      clusterId,
      ownerId,
      env: cluster.memberEnv ?? {},
      members: members.map((member) => memberSpec(cluster, member, rates)),
      ...(payload.priority ? { priority: payload.priority } : {}),
    };
    const bytes = Buffer.byteLength(JSON.stringify(event));
    if (bytes > MAX_EVENT_BYTES) {
      throw new DomainError(
        ErrorCode.PayloadTooLarge,
        `the member pods' specification is ${bytes} bytes, more than the ${MAX_EVENT_BYTES} the bus carries: ` +
          'use fewer or shorter env values or SSH keys',
      );
    }
    await ctx.emit(Subjects.cluster.created, event);
    return toClusterView(cluster, { [PodStatus.Provisioning]: members.length }, members[0]);
  }

  private async networkVolume(
    payload: CreateClusterCommand,
    ownerId: string,
    dataCenterIds: string[],
    manager: EntityManager,
  ): Promise<NetworkVolumeEntity | null> {
    const mount = payload.mounts?.network?.[0];
    if (!mount) return null;
    const field = 'mounts.network.0.volumeId';
    const volume = await this.placement.mountableVolume(field, mount.volumeId, ownerId, manager);
    if (dataCenterIds.length && !dataCenterIds.includes(volume.dataCenterId)) {
      throw invalid(
        `${field}: network volume ${volume.id} is in ${volume.dataCenterId}, which is not among dataCenterIds ` +
          `(${dataCenterIds.join(', ')})`,
      );
    }
    return volume;
  }

  private noCapacity(
    gpuType: GpuTypeEntity,
    podCount: number,
    perPod: number,
    considered: string[],
  ): DomainError {
    return new DomainError(
      ErrorCode.CapacityUnavailable,
      `no capacity for ${podCount} pods with ${perPod} × ${gpuType.id} each (${podCount * perPod} GPUs) in one data ` +
        `center; data centers considered: ${considered.length ? considered.join(', ') : 'none'}`,
    );
  }

  /** The cluster row (its overlay as placed) and its member rows, inside the placement's savepoint. */
  private async record(
    ctx: CommandContext<CreateClusterCommand>,
    manager: EntityManager,
    applied: AppliedPlacement,
    parts: {
      clusterId: string;
      ports: string[];
      gpuType: GpuTypeEntity;
      volume: NetworkVolumeEntity | null;
    },
  ): Promise<{ cluster: ClusterEntity; members: ClusterMemberEntity[] }> {
    const { payload, envelope } = ctx;
    const { vxlanId, block } = applied.overlay!;
    const mounts: ClusterMounts | null = payload.mounts?.persistent
      ? { persistent: { size: payload.mounts.persistent.size, path: payload.mounts.persistent.path } }
      : payload.mounts?.network?.length
        ? { network: payload.mounts.network.map((m) => ({ volumeId: m.volumeId, path: m.path })) }
        : null;
    const cluster: ClusterEntity = Object.assign(new ClusterEntity(), {
      id: parts.clusterId,
      ownerId: envelope.actor.userId,
      name: payload.name,
      type: payload.type,
      gpuTypeId: parts.gpuType.id,
      gpuCountPerPod: payload.compute.gpuCountPerPod,
      podCount: payload.compute.podCount,
      dataCenterId: applied.dataCenterId,
      cidr: formatCidr(block),
      vxlanId,
      vxlanPort: this.config.VXLAN_PORT,
      image: payload.image ?? this.config.CLUSTER_DEFAULT_IMAGE,
      args: payload.args ?? null,
      disk: payload.disk ?? this.config.CLUSTER_DEFAULT_DISK_GB,
      env: payload.env ?? {},
      ports: parts.ports,
      startJupyter: payload.startJupyter ?? false,
      startSsh: payload.startSsh ?? false,
      mounts,
      networkVolumeId: parts.volume?.id ?? null,
      createdAt: ctx.now,
      deletedAt: null,
      memberEnv: null,
    });
    cluster.memberEnv = clusterEnv({
      clusterId: cluster.id,
      type: cluster.type,
      podCount: cluster.podCount,
      gpusPerPod: cluster.gpuCountPerPod,
      primaryIp: memberAddress(block, 0),
      cidr: cluster.cidr,
      userEnv: cluster.env,
      sshPublicKeys: cluster.startSsh ? payload.sshPublicKeys : undefined,
      jupyterPassword: cluster.startJupyter ? deriveId(envelope.commandId, 'jupyter', 24) : undefined,
    });
    const members = applied.pods.map((pod) => {
      const ownIp = memberAddress(block, pod.rank);
      return Object.assign(new ClusterMemberEntity(), {
        podId: pod.podId,
        clusterId: cluster.id,
        rank: pod.rank,
        role: memberRole(cluster.type, pod.rank),
        name: `${cluster.name}-${pod.rank}`,
        overlayIp: ownIp,
        hostId: pod.hostId,
        publicIp: pod.publicIp,
        portMappings: pod.portMappings,
        env: memberOwnEnv(cluster.type, pod.rank, ownIp),
        status: PodStatus.Provisioning,
        statusAt: ctx.now,
        createdAt: ctx.now,
      });
    });
    await this.clusters.insert(cluster, members, manager);
    return { cluster, members };
  }
}
