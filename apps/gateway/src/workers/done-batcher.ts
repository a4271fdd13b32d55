import { Inject, Injectable } from '@nestjs/common';
import { DONE_MANY_MAX, Subjects, type Actor, type DoneManyItem, type JobDoneResult } from '@app/contracts';
import { CommandBus } from '@app/messaging';
import { CommandBatcher, callerKey } from '../jobs/command-batcher.js';
import { JobsEdgeConfig } from '../jobs/jobs-edge.config.js';

/** The outputs one batched command carries at most (a larger one goes alone), well inside a NATS message. */
const BATCH_BATCH_MAX_BYTES = 256 * 1024;

/** The posts of one worker of an endpoint, by one caller. */
interface DoneLine {
  endpointId: string;
  workerId: string;
  actor: Actor;
}

/**
 * Batches the job-done posts of a worker into fewer recorded commands (docs/adr/0013, "Batched results"; how:
 * command-batcher.ts). A line is a worker (of an endpoint, posting with one key): its broker lane applies its commands
 * one after another anyway (partitions.ts), so the posts that came while one was on its way go together as one
 * `worker.cmd.done-many`, in the order they came, and a worker's posts about one job (a progress update, then the
 * result) keep their order. A lone post goes at once as `worker.cmd.done`.
 */
@Injectable()
export class DoneBatcher {
  private readonly batcher: CommandBatcher<DoneLine, DoneManyItem, JobDoneResult>;

  constructor(commands: CommandBus, @Inject(JobsEdgeConfig) config: JobsEdgeConfig) {
    const timeoutMs = config.WORKER_COMMAND_TIMEOUT_MS;
    this.batcher = new CommandBatcher({
      maxItems: DONE_MANY_MAX,
      maxBytes: BATCH_BATCH_MAX_BYTES,
      alone: ({ endpointId, workerId, actor }, { id, ...post }) =>
        commands.execute(Subjects.worker.done, { endpointId, workerId, ...post }, actor, {
          commandId: id,
          timeoutMs,
        }),
      batched: async ({ endpointId, workerId, actor }, dones) =>
        (
          await commands.execute(Subjects.worker.doneMany, { endpointId, workerId, dones }, actor, {
            timeoutMs,
          })
        ).dones,
    });
  }

  /**
   * Records the post; `post.id` is the id of its own `worker.cmd.done` (what the broker records for it derives from
   * it), `bytes` the size of its inline output.
   */
  done(line: DoneLine, post: DoneManyItem, bytes: number): Promise<JobDoneResult> {
    const { endpointId, workerId, actor } = line;
    const key = `${endpointId}\u0000${workerId}\u0000${callerKey(actor)}`;
    return this.batcher.send(key, line, post, bytes);
  }
}
