import { Injectable, Logger } from '@nestjs/common';
import { Subjects, type Actor } from '@app/contracts';
import { CommandBus } from '@app/messaging';
import type { Observation, ObservationSink } from './runtime-driver.js';

export const RUNTIME_ACTOR: Actor = { userId: 'system:pod-lifecycle-runtime', kind: 'system' };

/**
 * Turns driver observations into recorded `pod.cmd.observe` commands, one pod's reports strictly in order (each
 * waits for the previous one's outcome), different pods in parallel. Never called from inside a pod command
 * handler (the pod consumer is sequential), only from driver timers and process callbacks.
 */
@Injectable()
export class ObservationReporter implements ObservationSink {
  private readonly logger = new Logger('runtime');
  private readonly chains = new Map<string, Promise<void>>();

  constructor(private readonly commands: CommandBus) {}

  report(observation: Observation): void {
    const previous = this.chains.get(observation.podId) ?? Promise.resolve();
    const next = previous.then(() => this.send(observation));
    this.chains.set(observation.podId, next);
    void next.finally(() => {
      if (this.chains.get(observation.podId) === next) this.chains.delete(observation.podId);
    });
  }

  /** Resolves once every report issued so far has been answered (or given up on). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.chains.values()]);
  }

  private async send(observation: Observation): Promise<void> {
    const { podId, generation, status, reason, exitCode } = observation;
    try {
      await this.commands.execute(
        Subjects.pod.observe,
        {
          podId,
          generation,
          status,
          ...(reason ? { reason: reason.slice(0, 1000) } : {}),
          ...(exitCode !== undefined ? { exitCode } : {}),
        },
        RUNTIME_ACTOR,
      );
    } catch (error) {
      this.logger.warn(
        `could not report ${status} of pod ${podId} (run ${generation}): ${(error as Error).message}`,
      );
    }
  }
}
