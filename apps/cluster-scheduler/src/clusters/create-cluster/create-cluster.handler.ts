import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  DomainError,
  ErrorCode,
  PodStatus,
  Subjects,
  deriveId,
  type ClusterCreatedEvent,
  type ClusterMemberSpec,
  type ClusterView,
  type CreateClusterCommand,
  type UsageRates,
  assertUnderSpendLimit,
} from '@app/contracts';
import { CommandHandler, QueryBus, type CommandContext } from '@app/messaging';
import { CatalogChecks } from '../../catalog/catalog.checks.js';
import { CatalogRepository } from '../../catalog/catalog.repository.js';
import type { GpuTypeEntity } from '../../catalog/gpu-type.entity.js';
import { ClusterSchedulerConfig } from '../../cluster-scheduler.config.js';
import {
  allocateBlock,
  blockSizeFor,
  formatCidr,
  lowestFreeId,
  memberAddress,
  parseCidr,
} from '../../overlay/overlay.js';
import type { PlacementRequest } from '../../placement/placement.js';
import { PlacementRepository, type Commitment, type PodClaim } from '../../placement/placement.repository.js';
import { PlacementService, type Plan } from '../../placement/placement.service.js';
import { mountableNetworkVolume } from '../../volumes/network-volume.access.js';
import type { NetworkVolumeEntity } from '../../volumes/network-volume.entity.js';
import { NetworkVolumesRepository } from '../../volumes/network-volumes.repository.js';
import { ClusterMemberEntity } from '../cluster-member.entity.js';
import { ClusterEntity, type ClusterMounts } from '../cluster.entity.js';
import { toClusterView } from '../cluster.mapper.js';
import { memberEnv, memberPorts, memberRole } from '../cluster-topology.js';
import { ClustersRepository } from '../clusters.repository.js';

/** NATS refuses messages over its max_payload (1 MB by default); the created event must stay below. */
const MAX_EVENT_BYTES = 900 * 1024;

function badRequest(message: string): DomainError {
  return new DomainError(ErrorCode.BadRequest, message);
}

function invalid(error: string): DomainError {
  return new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [error]);
}

/**
 * `cluster.cmd.create`: checks what the DTO cannot (catalog ids, maxCount, the volume), places every pod in one
 * data center, takes the GPUs, ports, a VXLAN id and a CIDR in one savepoint (planned again if a concurrent
 * create wins a race), records the cluster and its members, and emits `cluster.evt.created` for pod-lifecycle.
 * Any failure rolls the whole command back: nothing is left reserved.
 */
@Injectable()
export class CreateClusterHandler {
  private readonly logger = new Logger('clusters');
  constructor(
    private readonly clusters: ClustersRepository,
    private readonly volumes: NetworkVolumesRepository,
    private readonly placementRepository: PlacementRepository,
    private readonly placement: PlacementService,
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
    if (payload.mounts?.network?.length === 0)
      throw badRequest('mounts.network must hold one mount when it is set');
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
    // up to the command's time by pod-lifecycle, which meters it (docs/adr/0023-spend-limits.md).
    // Fails open while pod-lifecycle does not answer: its members wait for it anyway, and creates must not.
    const spend = await this.queries
      .query(Subjects.spend.status, { at: envelope.issuedAt, check: true }, envelope.actor)
      .catch((error: unknown) => {
        if (!(error instanceof DomainError) || error.code !== ErrorCode.OwnerUnavailable) throw error;
        this.logger.warn(`cluster create: spend limit not checked: ${error.message}`);
        return null;
      });
    if (spend) assertUnderSpendLimit(spend, 'cluster create');

    const clusterId = deriveId(envelope.commandId);
    const podIds = Array.from({ length: compute.podCount }, (_, rank) =>
      deriveId(envelope.commandId, `pod/${rank}`),
    );
    const ports = memberPorts(payload.ports ?? [], startSsh, startJupyter);
    const request: PlacementRequest = {
      gpuTypeId: gpuType.id,
      gpusPerPod: compute.gpuCountPerPod,
      cpuTypeId: null,
      podCount: compute.podCount,
      portsPerPod: ports.length,
      dataCenterIds,
      regions: [],
      volumeDataCenterId: volume?.dataCenterId ?? null,
      hostId: null,
    };
    const { cluster, members } = await this.placement.placeAndCommit(
      manager,
      request,
      (considered) => this.noCapacity(gpuType, compute.podCount, compute.gpuCountPerPod, considered),
      async (plan, savepoint) => {
        const taken = await this.placementRepository.commit(
          savepoint,
          plan.assignments.map((a): PodClaim => ({
            podId: podIds[a.rank],
            ownerId,
            clusterId,
            hostId: a.hostId,
            dataCenterId: plan.dataCenterId,
            gpuTypeId: gpuType.id,
            gpuCount: compute.gpuCountPerPod,
            cpuSlots: 0,
            networkVolumeId: volume?.id ?? null,
            ports,
            createdAt: ctx.now,
          })),
        );
        return this.record(ctx, savepoint, plan, { clusterId, podIds, ports, gpuType, volume, taken });
      },
    );

    const placed = { gpuTypeId: gpuType.id, gpuCount: compute.gpuCountPerPod, cpuTypeId: null };
    const rates = await this.catalog.rates({ ...placed, hostId: members[0].hostId }, manager);
    const event: ClusterCreatedEvent = {
      clusterId,
      ownerId,
      members: members.map((member) => this.memberSpec(cluster, member, rates)),
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
    const volume = mountableNetworkVolume(
      await this.volumes.findById(mount.volumeId, manager),
      field,
      mount.volumeId,
      ownerId,
    );
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

  /** The cluster row (VXLAN id, CIDR) and its member rows, inside the placement's savepoint. */
  private async record(
    ctx: CommandContext<CreateClusterCommand>,
    manager: EntityManager,
    plan: Plan,
    parts: {
      clusterId: string;
      podIds: string[];
      ports: string[];
      gpuType: GpuTypeEntity;
      volume: NetworkVolumeEntity | null;
      taken: Commitment;
    },
  ): Promise<{ cluster: ClusterEntity; members: ClusterMemberEntity[] }> {
    const { payload, envelope } = ctx;
    const live = await this.clusters.liveOverlays(manager);
    const vxlanId = lowestFreeId(
      live.map((l) => l.vxlanId),
      this.config.VXLAN_ID_MIN,
      this.config.VXLAN_ID_MAX,
    );
    if (vxlanId === null) {
      throw new DomainError(
        ErrorCode.CapacityUnavailable,
        'every VXLAN id of this deployment is in use by a live cluster',
      );
    }
    const block = allocateBlock(
      parseCidr(this.config.OVERLAY_POOL),
      live.map((l) => parseCidr(l.cidr)),
      blockSizeFor(payload.compute.podCount),
    );
    if (!block) {
      throw new DomainError(
        ErrorCode.CapacityUnavailable,
        `the overlay address pool ${this.config.OVERLAY_POOL} has no room for another ${payload.compute.podCount}-pod cluster`,
      );
    }
    const mounts: ClusterMounts | null = payload.mounts?.persistent
      ? { persistent: { size: payload.mounts.persistent.size, path: payload.mounts.persistent.path } }
      : payload.mounts?.network?.length
        ? { network: payload.mounts.network.map((m) => ({ volumeId: m.volumeId, path: m.path })) }
        : null;
    const cluster = Object.assign(new ClusterEntity(), {
      id: parts.clusterId,
      ownerId: envelope.actor.userId,
      name: payload.name,
      type: payload.type,
      gpuTypeId: parts.gpuType.id,
      gpuCountPerPod: payload.compute.gpuCountPerPod,
      podCount: payload.compute.podCount,
      dataCenterId: plan.dataCenterId,
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
    });
    const { hosts, mappings } = parts.taken;
    const primaryIp = memberAddress(block, 0);
    const jupyterPassword = cluster.startJupyter ? deriveId(envelope.commandId, 'jupyter', 24) : undefined;
    const members = plan.assignments.map((a) => {
      const podId = parts.podIds[a.rank];
      const ownIp = memberAddress(block, a.rank);
      return Object.assign(new ClusterMemberEntity(), {
        podId,
        clusterId: cluster.id,
        rank: a.rank,
        role: memberRole(cluster.type, a.rank),
        name: `${cluster.name}-${a.rank}`,
        overlayIp: ownIp,
        hostId: a.hostId,
        publicIp: hosts.get(a.hostId)!.publicIp,
        portMappings: mappings.get(podId) ?? {},
        env: memberEnv({
          clusterId: cluster.id,
          type: cluster.type,
          rank: a.rank,
          podCount: cluster.podCount,
          gpusPerPod: cluster.gpuCountPerPod,
          primaryIp,
          ownIp,
          cidr: cluster.cidr,
          userEnv: cluster.env,
          sshPublicKeys: cluster.startSsh ? payload.sshPublicKeys : undefined,
          jupyterPassword,
        }),
        status: PodStatus.Provisioning,
        statusAt: ctx.now,
        createdAt: ctx.now,
      });
    });
    await this.clusters.insert(cluster, members, manager);
    return { cluster, members };
  }

  private memberSpec(
    cluster: ClusterEntity,
    member: ClusterMemberEntity,
    rates: UsageRates,
  ): ClusterMemberSpec {
    const spec: ClusterMemberSpec = {
      podId: member.podId,
      rank: member.rank,
      role: member.role,
      name: member.name,
      placement: {
        podId: member.podId,
        hostId: member.hostId,
        dataCenterId: cluster.dataCenterId,
        publicIp: member.publicIp,
        gpuTypeId: cluster.gpuTypeId,
        gpuCount: cluster.gpuCountPerPod,
        portMappings: member.portMappings,
        rates,
      },
      image: cluster.image,
      env: member.env,
      ports: cluster.ports,
      disk: cluster.disk,
      startJupyter: cluster.startJupyter,
      overlayIp: member.overlayIp,
    };
    if (cluster.args !== null) spec.args = cluster.args;
    if (cluster.mounts) spec.mounts = cluster.mounts;
    return spec;
  }
}
