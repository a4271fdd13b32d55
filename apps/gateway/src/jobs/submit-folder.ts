import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  DomainError,
  ErrorCode,
  SUBMIT_MANY_MAX,
  Subjects,
  type Actor,
  type JobAccepted,
  type SubmitManyItem,
} from '@app/contracts';
import { CommandBus } from '@app/messaging';
import { requestContext, type RequestContext } from '@app/observability';

/** A job's input up to this size may be folded with others; a larger one goes in a submit of its own. */
export const FOLD_INPUT_MAX_BYTES = 16 * 1024;
/** The inputs one folded command carries at most, well inside a NATS message. */
const FOLD_BATCH_MAX_BYTES = 256 * 1024;
/**
 * How long the submits of a line wait for the one on its way before they go anyway: a command the broker is slow to
 * answer (a replica killed while it held it, its redelivery pending) holds the others no longer than this.
 */
export const FOLD_HOLD_MS = 50;

interface Waiting {
  item: SubmitManyItem;
  bytes: number;
  /** The request's context (its correlation id), for a submit sent on its own. */
  context: RequestContext | undefined;
  resolve: (accepted: JobAccepted) => void;
  reject: (error: unknown) => void;
}

/** The submits of one endpoint by one caller: whether one is being sent, and those that wait for it. */
interface Line {
  endpointId: string;
  actor: Actor;
  waiting: Waiting[];
}

/** Errors that say the command's fate is not known yet, rather than that it was refused. */
const UNDECIDED = new Set<string>([ErrorCode.OwnerUnavailable, ErrorCode.DependencyUnavailable]);

/**
 * Folds the submits of concurrent requests into fewer recorded commands (docs/adr/0013, "Submits folded"). While
 * a submit of an endpoint by a caller is on its way, the next ones of that endpoint and caller wait, and go
 * together as one `job.cmd.submit-many` when it returns: one JetStream message, delivery, outcome and processed
 * row for all of them. A submit with nothing before it goes at once and alone, as `job.cmd.submit`, so a lone
 * request waits for nothing. Each request is answered only once its job is committed, with its own `{id, status}`.
 *
 * The submits that wait do so for at most FOLD_HOLD_MS: when the one on its way takes longer (a broker replica killed
 * while it held the command), they go without it, so a stuck command never holds up its line.
 *
 * A folded command the broker refuses (a job's input it will not store, say) is sent again as one submit per job,
 * each with the id it had in the folded command, so each request gets its own answer and a bad job costs the others
 * only a retry. When the outcome is not known (the broker did not answer in time, JetStream did not take it), every
 * request of it gets that answer, as its own submit would have.
 */
@Injectable()
export class SubmitFolder {
  private readonly lines = new Map<string, Line>();

  constructor(private readonly commands: CommandBus) {}

  /** Submits the job; `item.id` is the id of the job's own submit command (the job's id derives from it). */
  submit(endpointId: string, actor: Actor, item: SubmitManyItem, bytes: number): Promise<JobAccepted> {
    return new Promise<JobAccepted>((resolve, reject) => {
      const waiting: Waiting = { item, bytes, context: requestContext.current(), resolve, reject };
      const key = `${endpointId}\u0000${actor.kind}\u0000${actor.userId}\u0000${actor.keyId ?? ''}`;
      const line = this.lines.get(key);
      if (line) {
        line.waiting.push(waiting);
        return;
      }
      const fresh: Line = { endpointId, actor, waiting: [] };
      this.lines.set(key, fresh);
      void this.send(key, fresh, [waiting]);
    });
  }

  /**
   * Sends a batch, then the next one of its line once it is answered (or FOLD_HOLD_MS has passed), until nothing
   * waits. A batch still on its way when the line ends goes on alone, answering its own requests.
   */
  private async send(key: string, line: Line, batch: Waiting[]): Promise<void> {
    for (;;) {
      await settledWithin(
        batch.length === 1 ? this.alone(line, batch[0]) : this.folded(line, batch),
        FOLD_HOLD_MS,
      );
      if (!line.waiting.length) {
        this.lines.delete(key);
        return;
      }
      batch = this.nextBatch(line);
    }
  }

  private nextBatch(line: Line): Waiting[] {
    let bytes = 0;
    let n = 0;
    while (n < line.waiting.length && n < SUBMIT_MANY_MAX) {
      bytes += line.waiting[n].bytes;
      if (n > 0 && bytes > FOLD_BATCH_MAX_BYTES) break;
      n += 1;
    }
    return line.waiting.splice(0, n);
  }

  private async folded(line: Line, batch: Waiting[]): Promise<void> {
    // Its own correlation id: the command is none of the requests' alone.
    const correlationId = `fold-${randomUUID()}`;
    try {
      const { jobs } = await requestContext.run({ correlationId }, () =>
        this.commands.execute(
          Subjects.job.submitMany,
          { endpointId: line.endpointId, jobs: batch.map((w) => w.item) },
          line.actor,
        ),
      );
      batch.forEach((w, i) => w.resolve(jobs[i]));
    } catch (error) {
      if (error instanceof DomainError && !UNDECIDED.has(error.code)) {
        await Promise.all(batch.map((w) => this.alone(line, w)));
        return;
      }
      for (const w of batch) w.reject(error);
    }
  }

  private async alone(line: Line, waiting: Waiting): Promise<void> {
    const { id, ...job } = waiting.item;
    const send = () =>
      this.commands.execute(Subjects.job.submit, { endpointId: line.endpointId, ...job }, line.actor, {
        commandId: id,
      });
    try {
      const accepted = await (waiting.context ? requestContext.run(waiting.context, send) : send());
      waiting.resolve({ id: accepted.id, status: accepted.status });
    } catch (error) {
      waiting.reject(error);
    }
  }
}

/** Resolves when `sending` settles or `ms` have passed, whichever is first (`sending` never rejects). */
function settledWithin(sending: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const held = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  return Promise.race([sending, held]).finally(() => clearTimeout(timer));
}
