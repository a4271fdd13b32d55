import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  MEMBER_TERMINATE_REFUSED_FROM_FORMAT,
  PodStatus,
  Subjects,
  commandFormatOf,
  deriveId,
  priorityOf,
  type CommandEnvelope,
  type PlacementView,
  type PodAction,
  type PodView,
  type WorkloadPriorityDto,
} from '@app/contracts';
import { CommandBus, type CommandContext, type EmitEvent } from '@app/messaging';
import type { EntityManager } from 'typeorm';
import { ownedPod } from './pod.access.js';
import type { PodEntity } from './pod.entity.js';
import { toPodView, toStatusChangedEvent } from './pod.mapper.js';
import { PodRepository } from './pod.repository.js';
import { PodUsage } from './usage/pod-usage.service.js';
import { RegistryAuthRepository } from '../registry-auth/registry-auth.repository.js';
import { SpendLedger } from '../spend/spend-ledger.service.js';
import {
  decide,
  memberRefusal,
  publishedActions,
  publishedName,
  publishedRefusalMessage,
  refusalMessage,
} from './pod-status-machine.js';

/** What a handler writing a status needs: the transaction, the outbox and the command's time (usage accrues from it). */
export interface StatusWriter {
  manager: EntityManager;
  now: Date;
  emit: EmitEvent;
}

/**
 * Writes status changes (always with their `pod.evt.status-changed` event) and runs user actions through the
 * status machine, with the pod's row locked for the whole command.
 */
@Injectable()
export class PodTransitions {
  constructor(
    private readonly pods: PodRepository,
    private readonly commands: CommandBus,
    private readonly usage: PodUsage,
    private readonly spend: SpendLedger,
    private readonly registryAuths: RegistryAuthRepository,
  ) {}

  /** Moves the pod to `to`, saves it and records the event (one per pod and command). */
  async changeStatus(
    pod: PodEntity,
    to: PodStatus,
    writer: StatusWriter,
    reason: string | null = null,
  ): Promise<void> {
    const previous = pod.status;
    if (to === PodStatus.Terminated && previous !== PodStatus.Terminated && pod.registryAuthId) {
      // A terminated pod stops using its credential, whose delete reads its users under the credential's lock:
      // taken here too, so the two wait for each other and the delete's answer follows a rebuild's order.
      await this.registryAuths.lockById(pod.registryAuthId, writer.manager, 'share');
    }
    pod.status = to;
    pod.statusReason = reason;
    pod.lastStatusChange = writer.now;
    await this.pods.save(pod, writer.manager);
    await this.usage.statusChanged(pod, previous, writer.now, writer.manager);
    await writer.emit(Subjects.pod.statusChanged, toStatusChangedEvent(pod, previous), pod.id);
  }

  /** A member of a deleted cluster ends: TERMINATED, wanted so, with the reason both cluster handlers give. */
  async terminateClusterMember(pod: PodEntity, clusterId: string, writer: StatusWriter): Promise<void> {
    pod.desiredStatus = PodStatus.Terminated;
    await this.changeStatus(pod, PodStatus.Terminated, writer, `cluster ${clusterId} was deleted`);
  }

  /**
   * A user action: 404/403, a cluster member's own terminate refused (409, the same rule for every surface),
   * then the status machine. A refused action throws INVALID_STATE (409, naming the
   * status and the allowed actions); a no-op answers the pod as it is; a transition runs `effect` (which may
   * reserve capacity and must set the new status through `changeStatus`). With `publishedOnly` (v2) the action
   * must first be one of the pod's published actions.
   */
  async act(
    ctx: CommandContext<{ podId: string; publishedOnly?: boolean }>,
    action: PodAction,
    effect: (pod: PodEntity, to: PodStatus) => Promise<void>,
  ): Promise<PodView> {
    const { podId } = ctx.payload;
    const pod = ownedPod(await this.pods.lockById(podId, ctx.manager), podId, ctx.envelope.actor);
    // A v1 terminate of a member recorded before the rule (format 2) terminated it; a replay must too.
    const ruled = commandFormatOf(ctx.envelope) >= MEMBER_TERMINATE_REFUSED_FROM_FORMAT;
    const member = ruled ? memberRefusal(pod.id, pod.status, pod.clusterId, action) : null;
    if (member) throw new DomainError(ErrorCode.InvalidState, member);
    if (
      ctx.payload.publishedOnly &&
      !publishedActions(pod.status, pod.clusterId !== null).includes(publishedName(action))
    ) {
      throw new DomainError(
        ErrorCode.InvalidState,
        publishedRefusalMessage(pod.id, pod.status, pod.clusterId, action),
      );
    }
    const decision = decide(pod.status, action);
    switch (decision.kind) {
      case 'refused':
        throw new DomainError(
          ErrorCode.InvalidState,
          refusalMessage(pod.id, pod.status, action, pod.clusterId !== null),
        );
      case 'noop':
        return toPodView(pod);
      case 'transition':
        await effect(pod, decision.to);
        return toPodView(pod);
    }
  }

  /**
   * Reset's effect, also an edit's of a RUNNING pod: a new run of the container from the pod's current
   * configuration on a wiped container disk (a new disk epoch); a pod not RUNNING gets its GPUs reserved on its
   * host first.
   */
  async restart(pod: PodEntity, to: PodStatus, ctx: CommandContext, reason: string): Promise<void> {
    if (pod.status !== PodStatus.Running) {
      // A stopped pod run again is new GPU work; a running one's new run is not (docs/adr/0023-spend-limits.md).
      await this.assertUnderSpendLimit(ctx, 'pod restart');
      await this.reserveOnSameHost(ctx.envelope, pod);
    }
    pod.generation += 1;
    pod.diskEpoch += 1;
    pod.desiredStatus = PodStatus.Running;
    pod.lastStartedAt = ctx.now;
    await this.changeStatus(pod, to, ctx, reason);
  }

  /** Refuses new GPU work (a start, or a restart of a stopped pod) once the owner's monthly spend limit is reached. */
  assertUnderSpendLimit(ctx: CommandContext, what: string): Promise<void> {
    return this.spend.assertUnderLimit(ctx.envelope.actor, ctx.now, what);
  }

  /**
   * Reserves the pod's GPUs again on the host it was on (resume after stop, reset of a stopped pod). The
   * scheduler answers CAPACITY_UNAVAILABLE when that host lacks them now: that is the action's answer, the pod
   * never moves silently. The host maps the pod's current `ports`: a reservation still held with others (an edit
   * changed them while the pod held it) keeps host and GPUs and gets its public ports anew.
   */
  async reserveOnSameHost(envelope: CommandEnvelope, pod: PodEntity): Promise<void> {
    if (!pod.hostId) {
      throw new DomainError(
        ErrorCode.InvalidState,
        `pod ${pod.id} was never placed on a host; terminate it instead`,
      );
    }
    const placement = await this.commands.execute(
      Subjects.placement.reserve,
      {
        podId: pod.id,
        ownerId: pod.ownerId,
        ...(pod.gpuTypeId ? { gpuTypeId: pod.gpuTypeId } : {}),
        gpuCount: pod.gpuCount,
        ...(pod.cpuTypeId ? { cpuTypeId: pod.cpuTypeId } : {}),
        hostId: pod.hostId,
        ...(pod.networkVolumeId ? { networkVolumeId: pod.networkVolumeId } : {}),
        ports: pod.ports,
        reassignPorts: true,
        ...workloadOf(pod),
      },
      envelope.actor,
      { commandId: deriveId(envelope.commandId, 'reserve'), issuedAt: envelope.issuedAt },
    );
    applyPlacement(pod, placement);
  }
}

/** What every reservation of the pod carries (its create's and its resumes'), as the pod stores it. */
export function workloadOf(
  pod: Pick<PodEntity, 'priority' | 'interruptible'>,
): Required<WorkloadPriorityDto> {
  return { priority: priorityOf(pod.priority), interruptible: pod.interruptible };
}

/** Copies where the scheduler put the pod onto the row. */
export function applyPlacement(pod: PodEntity, placement: PlacementView): void {
  pod.hostId = placement.hostId;
  pod.dataCenterId = placement.dataCenterId;
  pod.publicIp = placement.publicIp;
  pod.portMappings = placement.portMappings;
  pod.gpuTypeId = placement.gpuTypeId ?? pod.gpuTypeId;
  pod.gpuCount = placement.gpuCount;
  if (placement.rates) {
    pod.computePerHr = placement.rates.computePerHr;
    pod.containerDiskPerGbHr = placement.rates.containerDiskPerGbHr;
  }
}
