import { Injectable } from '@nestjs/common';
import { PodStatus, Subjects } from '@app/contracts';
import { PodLifecycleConfig } from '../../pod-lifecycle.config.js';
import type { PodEntity } from '../pod.entity.js';
import type { StatusWriter } from '../pod-transitions.js';
import { HostStartFailuresRepository } from './host-start-failures.repository.js';
import { afterFailure, blamesHost, startFailuresReason } from './start-failures.rules.js';

/**
 * Counts, per host, the pods that fail to start on it in a row (docs/adr/0039): an observed ERROR while the pod was
 * PROVISIONING or STARTING, for a reason the host is blamed for (start-failures.rules.ts), lengthens the host's
 * streak; a pod reaching RUNNING on the host ends it. At HOST_START_FAILURES distinct pods it emits
 * `pod.evt.host-start-failures`, which report-start-failures answers with a recorded `fleet.cmd.report-health`.
 * Runs in the observe command's transaction, so a rebuild counts the same.
 */
@Injectable()
export class HostStartFailures {
  constructor(
    private readonly streaks: HostStartFailuresRepository,
    private readonly config: PodLifecycleConfig,
  ) {}

  async observed(
    pod: Pick<PodEntity, 'id' | 'hostId'>,
    from: PodStatus,
    to: PodStatus,
    observation: { reason?: string; exitCode?: number },
    writer: StatusWriter,
  ): Promise<void> {
    const hostId = pod.hostId;
    if (!hostId) return;
    if (to === PodStatus.Running) {
      if ((await this.streaks.lock(hostId, writer.manager)).length) {
        await this.streaks.clear(hostId, writer.manager);
      }
      return;
    }
    const starting = from === PodStatus.Provisioning || from === PodStatus.Starting;
    if (to !== PodStatus.Error || !starting || !blamesHost(observation.reason, observation.exitCode)) return;
    const streak = await this.streaks.lock(hostId, writer.manager);
    const failure = { podId: pod.id, reason: observation.reason ?? 'the container did not start' };
    const { streak: next, report } = afterFailure(streak, failure, this.config.HOST_START_FAILURES);
    if (next.length) await this.streaks.save(hostId, next, writer.now, writer.manager);
    else await this.streaks.clear(hostId, writer.manager);
    if (report) {
      await writer.emit(
        Subjects.pod.hostStartFailures,
        { hostId, podIds: report.map((f) => f.podId), reason: startFailuresReason(report) },
        `start-failures:${hostId}`,
      );
    }
  }
}
