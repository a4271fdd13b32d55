import { randomUUID } from 'node:crypto';
import { DomainError, ErrorCode, type Actor } from '@app/contracts';
import { requestContext, type RequestContext } from '@app/observability';

/**
 * How one kind of command is batched (docs/adr/0013): `alone` sends one item as the command of its own it would be
 * unbatched; `batched` sends several as one command and answers each, in order.
 */
export interface BatchPlan<Line, Item, Answer> {
  /** The most items one batched command carries. */
  maxItems: number;
  /** The most bytes of items one batched command carries (its first item goes whatever its size). */
  maxBytes: number;
  alone(line: Line, item: Item): Promise<Answer>;
  batched(line: Line, items: Item[]): Promise<Answer[]>;
}

/**
 * How long the items of a line wait for the command on its way before they go anyway: a command the broker is slow
 * to answer (a replica killed while it held it, its redelivery pending) holds the others no longer than this.
 */
export const BATCH_HOLD_MS = 50;

interface Waiting<Item, Answer> {
  item: Item;
  bytes: number;
  /** The request's context (its correlation id), for an item sent on its own. */
  context: RequestContext | undefined;
  resolve: (answer: Answer) => void;
  reject: (error: unknown) => void;
}

/** The items of one line: whether a command is being sent, and those that wait for it. */
interface Lane<Line, Item, Answer> {
  line: Line;
  waiting: Waiting<Item, Answer>[];
}

/** A caller as part of a line's key: its kind, user and key, so two callers' commands never batch together. */
export function callerKey(actor: Actor): string {
  return `${actor.kind}\u0000${actor.userId}\u0000${actor.keyId ?? ''}`;
}

/** Errors that say the command's fate is not known yet, rather than that it was refused. */
const UNDECIDED = new Set<string>([ErrorCode.OwnerUnavailable, ErrorCode.DependencyUnavailable]);

/**
 * Batches the commands of concurrent requests of one line (an endpoint and caller, say) into fewer recorded commands
 * (docs/adr/0013). While a command of a line is on its way, the next items of that line wait, and go together as one
 * batched command when it returns: one JetStream message, delivery, outcome and processed row for all of them. An
 * item with nothing before it goes at once and alone, so a lone request waits for nothing. Each request is answered
 * only once its command is committed, with its own answer.
 *
 * The items that wait do so for at most BATCH_HOLD_MS: when the command on its way takes longer, they go without it,
 * so a stuck command never holds up its line.
 *
 * A batched command the broker refuses is sent again as one command per item, each with the id it had in the batched
 * command, so each request gets its own answer and a bad item costs the others only a retry. When the outcome is
 * not known (the broker did not answer in time, JetStream did not take it), every request of it gets that answer,
 * as its own command would have.
 */
export class CommandBatcher<Line, Item, Answer> {
  private readonly lanes = new Map<string, Lane<Line, Item, Answer>>();

  constructor(private readonly plan: BatchPlan<Line, Item, Answer>) {}

  /** Sends `item` of the line `key` (described by `line`, which the first item of a lane gives). */
  send(key: string, line: Line, item: Item, bytes: number): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      const waiting = { item, bytes, context: requestContext.current(), resolve, reject };
      const lane = this.lanes.get(key);
      if (lane) {
        lane.waiting.push(waiting);
        return;
      }
      const fresh: Lane<Line, Item, Answer> = { line, waiting: [] };
      this.lanes.set(key, fresh);
      void this.drain(key, fresh, [waiting]);
    });
  }

  /**
   * Sends a batch, then the next one of its lane once it is answered (or BATCH_HOLD_MS has passed), until nothing
   * waits. A batch still on its way when the lane ends goes on alone, answering its own requests.
   */
  private async drain(key: string, lane: Lane<Line, Item, Answer>, batch: Waiting<Item, Answer>[]) {
    for (;;) {
      await settledWithin(
        batch.length === 1 ? this.alone(lane.line, batch[0]) : this.batched(lane.line, batch),
        BATCH_HOLD_MS,
      );
      if (!lane.waiting.length) {
        this.lanes.delete(key);
        return;
      }
      batch = this.nextBatch(lane);
    }
  }

  private nextBatch(lane: Lane<Line, Item, Answer>): Waiting<Item, Answer>[] {
    let bytes = 0;
    let n = 0;
    while (n < lane.waiting.length && n < this.plan.maxItems) {
      bytes += lane.waiting[n].bytes;
      if (n > 0 && bytes > this.plan.maxBytes) break;
      n += 1;
    }
    return lane.waiting.splice(0, n);
  }

  private async batched(line: Line, batch: Waiting<Item, Answer>[]): Promise<void> {
    // Its own correlation id: the command is none of the requests' alone.
    const correlationId = `batch-${randomUUID()}`;
    try {
      const answers = await requestContext.run({ correlationId }, () =>
        this.plan.batched(
          line,
          batch.map((w) => w.item),
        ),
      );
      batch.forEach((w, i) => w.resolve(answers[i]));
    } catch (error) {
      if (error instanceof DomainError && !UNDECIDED.has(error.code)) {
        await Promise.all(batch.map((w) => this.alone(line, w)));
        return;
      }
      for (const w of batch) w.reject(error);
    }
  }

  private async alone(line: Line, waiting: Waiting<Item, Answer>): Promise<void> {
    const send = () => this.plan.alone(line, waiting.item);
    try {
      waiting.resolve(await (waiting.context ? requestContext.run(waiting.context, send) : send()));
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
