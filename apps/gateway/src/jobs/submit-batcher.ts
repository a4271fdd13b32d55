import { Injectable } from '@nestjs/common';
import { SUBMIT_MANY_MAX, Subjects, type Actor, type JobAccepted, type SubmitManyItem } from '@app/contracts';
import { CommandBus } from '@app/messaging';
import { CommandBatcher, callerKey } from './command-batcher.js';

/** A job's input up to this size may be batched with others; a larger one goes in a submit of its own. */
export const BATCH_INPUT_MAX_BYTES = 16 * 1024;
/** The inputs one batched command carries at most, well inside a NATS message. */
const BATCH_BATCH_MAX_BYTES = 256 * 1024;

/** The submits of one endpoint by one caller. */
interface SubmitLine {
  endpointId: string;
  actor: Actor;
}

/**
 * Batches the submits of concurrent requests into fewer recorded commands (docs/adr/0013, "Batched submits"; how:
 * command-batcher.ts). A line is an endpoint and a caller; a submit with nothing before it goes at once as
 * `job.cmd.submit`, those that came while it was on its way go together as one `job.cmd.submit-many`. A refused
 * submit-many is sent again as one submit per job, each with the id it had in it (its job's id derives from it).
 */
@Injectable()
export class SubmitBatcher {
  private readonly batcher: CommandBatcher<SubmitLine, SubmitManyItem, JobAccepted>;

  constructor(commands: CommandBus) {
    this.batcher = new CommandBatcher({
      maxItems: SUBMIT_MANY_MAX,
      maxBytes: BATCH_BATCH_MAX_BYTES,
      alone: async ({ endpointId, actor }, { id, ...job }) => {
        const accepted = await commands.execute(Subjects.job.submit, { endpointId, ...job }, actor, {
          commandId: id,
        });
        return { id: accepted.id, status: accepted.status };
      },
      batched: async ({ endpointId, actor }, jobs) =>
        (await commands.execute(Subjects.job.submitMany, { endpointId, jobs }, actor)).jobs,
    });
  }

  /** Submits the job; `item.id` is the id of the job's own submit command (the job's id derives from it). */
  submit(endpointId: string, actor: Actor, item: SubmitManyItem, bytes: number): Promise<JobAccepted> {
    return this.batcher.send(`${endpointId}\u0000${callerKey(actor)}`, { endpointId, actor }, item, bytes);
  }
}
