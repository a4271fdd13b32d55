import { Injectable } from '@nestjs/common';
import { HOST_REASONS, Subjects, type HostNoticeCommand, type HostNoticeResult } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { PodRepository } from '../pod.repository.js';

/** `HOST_DRAINING: host h drains: <reason>; stopped at <deadline>`. */
export function drainNotice(hostId: string, reason: string | null, deadline: Date | null): string {
  const why = reason ? `: ${reason}` : '';
  const until = deadline ? `; stopped at ${deadline.toISOString()}` : '';
  return `${HOST_REASONS.draining}: host ${hostId} drains${why}${until}`;
}

/**
 * A host's drain began, or was called off (`pod.cmd.host-notice`, recorded on `fleet.evt.host-changed`). DRAINING:
 * each live pod of a user on the host gets the notice and the time it is stopped at, shown on its views; a serverless
 * worker (it has an endpoint) gets none, the autoscaler replaces it elsewhere. Any other state clears the notices
 * of the host's pods, whatever their status. The status is not touched (no status event); the row alone changes.
 */
@Injectable()
export class HostNoticeHandler {
  constructor(private readonly pods: PodRepository) {}

  @CommandHandler(Subjects.pod.hostNotice)
  async handle(ctx: CommandContext<HostNoticeCommand>): Promise<HostNoticeResult> {
    const { hostId, state, reason, drainDeadline } = ctx.payload;
    const result: HostNoticeResult = { noticed: [], cleared: [] };
    if (state !== 'DRAINING') {
      for (const pod of await this.pods.lockNoticedOnHost(hostId, ctx.manager)) {
        pod.hostNotice = null;
        pod.hostNoticeAt = null;
        pod.stopDeadline = null;
        await this.pods.save(pod, ctx.manager);
        result.cleared.push(pod.id);
      }
      return result;
    }
    const deadline = drainDeadline ? new Date(drainDeadline) : null;
    const notice = drainNotice(hostId, reason ?? null, deadline);
    for (const pod of await this.pods.lockLiveOnHostAmong(
      hostId,
      ctx.payload.pods.map((pod) => pod.podId),
      ctx.manager,
    )) {
      if (pod.endpointId) continue;
      if (pod.hostNotice === notice && pod.stopDeadline?.getTime() === deadline?.getTime()) continue;
      pod.hostNotice = notice;
      pod.hostNoticeAt = ctx.now;
      pod.stopDeadline = deadline;
      await this.pods.save(pod, ctx.manager);
      result.noticed.push(pod.id);
    }
    return result;
  }
}
