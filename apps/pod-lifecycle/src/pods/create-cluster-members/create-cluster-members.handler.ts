import { Injectable } from '@nestjs/common';
import {
  PodStatus,
  Subjects,
  priorityRank,
  type ClusterCreatedEvent,
  type ClusterMembersResult,
  type ClusterMemberSpec,
  type CreateClusterMembersCommand,
} from '@app/contracts';
import {
  CommandBus,
  CommandHandler,
  EventHandler,
  type CommandContext,
  type EventContext,
} from '@app/messaging';
import { recordMembersCommand } from '../cluster-members.reaction.js';
import { PodEntity } from '../pod.entity.js';
import { toStatusChangedEvent } from '../pod.mapper.js';
import { PodRepository } from '../pod.repository.js';
import { applyPlacement, PodTransitions, type StatusWriter } from '../pod-transitions.js';
import { DeletedClustersRepository } from '../deleted-clusters/deleted-clusters.repository.js';
import { PodUsage } from '../usage/pod-usage.service.js';

/**
 * The scheduler placed a cluster: create its member pods (already placed, so no reservation), PROVISIONING,
 * one status event each; the runtime driver takes them from there. A member that exists already is left alone
 * (the event is applied once anyway; this also covers a pod id reused by a replay). When the cluster's delete was
 * heard first (this event delivered again after a replica died with it), each member is terminated as it is
 * created, through the same transition a delete takes, so its GPUs are given back. The event is answered by a
 * recorded command (`pod.cmd.create-cluster-members`, an id derived from the event), which does the work: a
 * rebuild creates the members where the live side did, rather than whenever it handles the event.
 */
@Injectable()
export class CreateClusterMembersHandler {
  constructor(
    private readonly pods: PodRepository,
    private readonly usage: PodUsage,
    private readonly transitions: PodTransitions,
    private readonly deletedClusters: DeletedClustersRepository,
    private readonly commands: CommandBus,
  ) {}

  @EventHandler(Subjects.cluster.created)
  heard(ctx: EventContext<ClusterCreatedEvent>): Promise<void> {
    return recordMembersCommand(this.commands, ctx.event, Subjects.pod.createClusterMembers);
  }

  @CommandHandler(Subjects.pod.createClusterMembers)
  async handle(ctx: CommandContext<CreateClusterMembersCommand>): Promise<ClusterMembersResult> {
    const payload = ctx.payload.cluster;
    const now = ctx.now;
    let created = 0;
    await this.deletedClusters.lockMembers(payload.clusterId, ctx.manager);
    // The members' hosts' pod sets, before the inserts: a host-lost (drained, notice) of one of those hosts on
    // another replica either sees the members or is dated before them (PodRepository.lockHosts).
    await this.pods.lockHosts(
      payload.members.map((member) => member.placement.hostId),
      ctx.manager,
    );
    const deleted = await this.deletedClusters.isDeleted(payload.clusterId, ctx.manager);
    const writer: StatusWriter = {
      manager: ctx.manager,
      now,
      // A second event of the pod in this handler: its id (derived from the event and the part) must differ.
      emit: (subject, body, part) => ctx.emit(subject, body, `${part}:deleted`),
    };
    for (const member of payload.members) {
      if (await this.pods.findById(member.podId, ctx.manager)) continue;
      const pod = memberPod(payload, member, now);
      await this.pods.insert(pod, ctx.manager);
      await this.usage.statusChanged(pod, null, now, ctx.manager);
      await ctx.emit(Subjects.pod.statusChanged, toStatusChangedEvent(pod, null), pod.id);
      created += 1;
      if (!deleted) continue;
      await this.transitions.terminateClusterMember(pod, payload.clusterId, writer);
    }
    return { pods: created };
  }
}

function memberPod(cluster: ClusterCreatedEvent, member: ClusterMemberSpec, now: Date): PodEntity {
  const pod = Object.assign(new PodEntity(), {
    id: member.podId,
    ownerId: cluster.ownerId,
    name: member.name,
    image: member.image,
    args: member.args ?? null,
    env: cluster.env ? { ...cluster.env, ...member.env } : member.env,
    secretEnv: {},
    ports: member.ports,
    portMappings: {},
    publicIp: null,
    containerDiskGb: member.disk,
    volumeMountPath: member.mounts?.network?.[0]?.path ?? member.mounts?.persistent?.path ?? null,
    gpuTypeId: null,
    gpuCount: 0,
    cpuTypeId: null,
    hostId: null,
    dataCenterId: null,
    clusterId: cluster.clusterId,
    clusterRank: member.rank,
    clusterRole: member.role,
    overlayIp: member.overlayIp,
    mounts: member.mounts ? { ...member.mounts } : null,
    templateId: cluster.templateId ?? null,
    registryAuthId: null,
    networkVolumeId: member.mounts?.network?.[0]?.volumeId ?? null,
    status: PodStatus.Provisioning,
    desiredStatus: PodStatus.Running,
    statusReason: null,
    hostNotice: null,
    hostNoticeAt: null,
    stopDeadline: null,
    generation: 0,
    diskEpoch: 0,
    lastStatusChange: now,
    lastStartedAt: now,
    createdAt: now,
    computePerHr: 0,
    containerDiskPerGbHr: 0,
    endpointId: null,
    priority: priorityRank(cluster.priority),
    // A cluster is one workload, never interruptible.
    interruptible: false,
  } satisfies PodEntity);
  applyPlacement(pod, member.placement);
  return pod;
}
