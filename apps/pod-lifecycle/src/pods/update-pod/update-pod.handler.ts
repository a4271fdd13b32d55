import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  PodStatus,
  Subjects,
  type PodView,
  type UpdatePodCommand,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ownedRegistryAuth } from '../../registry-auth/registry-auth.access.js';
import { RegistryAuthRepository } from '../../registry-auth/registry-auth.repository.js';
import { ownedPod } from '../pod.access.js';
import type { PodEntity } from '../pod.entity.js';
import { toPodView } from '../pod.mapper.js';
import { PodRepository } from '../pod.repository.js';
import { decide } from '../pod-status-machine.js';
import { PodTransitions } from '../pod-transitions.js';
import { containerChanges } from './container-edit.js';
import { movedMountPath, updatedMounts } from './mount-update.js';
import { PodUsage } from '../usage/pod-usage.service.js';

/**
 * `PATCH /v1/pods/{id}` and `PATCH /v2/pods/{id}`. A cluster member is configured by its cluster (409), a
 * terminated pod no longer changes (409). The name and the mount path (the interface's mount update rules,
 * mount-update.ts) change without a new container: a new path reaches it at its next start. A change to the
 * container itself (container-edit.ts) restarts a RUNNING pod as a reset does (new run, wiped container disk; its
 * host maps new ports anew), is kept for the next start of a stopped or failed pod, and is refused (409) while
 * the pod is being provisioned or started: the run under way was made from the old configuration.
 */
@Injectable()
export class UpdatePodHandler {
  constructor(
    private readonly pods: PodRepository,
    private readonly registryAuths: RegistryAuthRepository,
    private readonly transitions: PodTransitions,
    private readonly usage: PodUsage,
  ) {}

  @CommandHandler(Subjects.pod.update)
  async handle(ctx: CommandContext<UpdatePodCommand>): Promise<PodView> {
    const { payload, envelope, manager } = ctx;
    const { podId } = payload;
    const pod = ownedPod(await this.pods.lockById(podId, manager), podId, envelope.actor);
    if (pod.clusterId) {
      throw new DomainError(
        ErrorCode.InvalidState,
        `cannot update pod ${podId}: it is a member of cluster ${pod.clusterId}; its cluster configures it`,
      );
    }
    if (pod.status === PodStatus.Terminated) {
      throw new DomainError(ErrorCode.InvalidState, `cannot update pod ${podId}: it is TERMINATED`);
    }
    const changes = containerChanges(pod, payload);
    const editsContainer = Object.keys(changes).length > 0;
    if (editsContainer && (pod.status === PodStatus.Provisioning || pod.status === PodStatus.Starting)) {
      throw new DomainError(
        ErrorCode.InvalidState,
        `cannot change the container of pod ${podId} while it is ${pod.status}; ` +
          'wait until it is RUNNING (the change then restarts it) or stop it first',
      );
    }
    if (changes.registryAuthId) {
      // Locked `share`, as a template's: a concurrent delete of the credential waits, then sees this pod.
      const id = changes.registryAuthId;
      ownedRegistryAuth(await this.registryAuths.lockById(id, manager, 'share'), id, envelope.actor);
    }
    if (payload.name !== undefined) pod.name = payload.name;
    this.moveMount(pod, payload);
    const diskBefore = pod.containerDiskGb;
    Object.assign(pod, changes);
    if (pod.containerDiskGb !== diskBefore) await this.usage.diskResized(pod, ctx.now, manager);
    if (!editsContainer || pod.status !== PodStatus.Running) {
      await this.pods.save(pod, manager);
      return toPodView(pod);
    }
    if (changes.ports) await this.transitions.reserveOnSameHost(envelope, pod);
    const decision = decide(pod.status, 'reset');
    if (decision.kind !== 'transition') throw new Error(`a RUNNING pod resets, but ${decision.kind}`);
    await this.transitions.restart(pod, decision.to, ctx, 'restarted: its container was edited');
    return toPodView(pod);
  }

  /** v2's `mounts` (the interface's rules) or v1's `volumeMountPath` (the path of whatever the pod mounts). */
  private moveMount(pod: PodEntity, payload: UpdatePodCommand): void {
    const next =
      updatedMounts(pod, payload.mounts) ??
      (payload.volumeMountPath !== undefined ? movedMountPath(pod, payload.volumeMountPath) : null);
    if (!next) return;
    pod.mounts = next.mounts;
    pod.volumeMountPath = next.volumeMountPath;
  }
}
