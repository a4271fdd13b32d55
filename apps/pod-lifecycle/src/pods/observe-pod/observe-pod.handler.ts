import { Injectable } from '@nestjs/common';
import { PodStatus, Subjects, type ObservePodCommand, type ObservePodResult } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { PodRepository } from '../pod.repository.js';
import { PodTransitions } from '../pod-transitions.js';
import { observe } from '../pod-status-machine.js';
import { HostStartFailures } from '../start-failures/host-start-failures.service.js';

/**
 * What the runtime driver saw (recorded, so a replay reproduces the statuses). The status machine decides: an
 * observation of an older run, of an unknown pod or one the machine ignores changes nothing. A failed start counts
 * against the pod's host, a start that succeeds clears the host's count (start-failures/).
 */
@Injectable()
export class ObservePodHandler {
  constructor(
    private readonly pods: PodRepository,
    private readonly transitions: PodTransitions,
    private readonly startFailures: HostStartFailures,
  ) {}

  @CommandHandler(Subjects.pod.observe)
  async handle(ctx: CommandContext<ObservePodCommand>): Promise<ObservePodResult> {
    const { podId, generation, status: observed, reason, exitCode } = ctx.payload;
    const pod = await this.pods.lockById(podId, ctx.manager);
    if (!pod) return { applied: false, status: null };
    const next = pod.generation === generation ? observe(pod.status, observed) : null;
    if (!next) return { applied: false, status: pod.status };
    if (next === PodStatus.Exited || next === PodStatus.Error) pod.desiredStatus = PodStatus.Exited;
    const why = reason ?? (exitCode !== undefined ? `the container exited with code ${exitCode}` : null);
    await this.startFailures.observed(pod, pod.status, next, { reason, exitCode }, ctx);
    await this.transitions.changeStatus(pod, next, ctx, next === PodStatus.Running ? null : why);
    return { applied: true, status: next };
  }
}
