import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Msg, Subscription } from '@nats-io/transport-node';
import {
  ErrorCode,
  domainOf,
  domainsOwnedBy,
  replayFeedSubject,
  replayScopeOf,
  type CommandOutcome,
  type ReplayFeedRequest,
  type ReplayFeedResult,
} from '@app/contracts';
import { BaseConfig } from '@app/config';
import { CommandWork } from './command-work.js';
import { DeliveryApplier } from './delivery-applier.js';
import {
  commandIdentity,
  type BatchItem,
  type MessageIdentity,
  type ProcessResult,
} from './applied-message.js';
import { MessageProcessor } from './message-processor.js';
import { MESSAGING_OPTIONS, type MessagingOptions } from './messaging.options.js';
import { NatsClient } from './nats-client.js';

/**
 * The replay tool's way in (docs/adr/0025-replay-speed.md): a core NATS request naming recorded commands of this
 * owner, applied in the order given, across the owner's domains, through the live path's batch
 * (MessageProcessor.processBatch: one transaction, one at a time if one fails) and answered with every outcome.
 * Only commands that commute leave that order: job and worker commands whose scopes (replayScopeOf) share
 * nothing run in parallel lanes, each lane in order. A command may come with what its live application decided
 * where a race, not the order, chose its effect (`decided`: the jobs a take leased); its handler follows that
 * (docs/adr/0028-recorded-take-decisions.md).
 *
 * Why not the commands stream: each domain has a consumer of its own and each consumer several lanes, so
 * commands published back to back are applied side by side (a take of one worker before the submit it should
 * lease, two workers' takes in either order), and waiting for each outcome before publishing the next is what made
 * a replay take 14 ms a command. Requests are handled one at a time, in the order they arrive, so a caller that
 * waits for each answer before sending the next keeps its order. The commands named are already recorded
 * (the tool read them from the stream), so nothing is applied that the log does not hold.
 */
@Injectable()
export class ReplayFeed implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('replay-feed');
  private subscription?: Subscription;
  private serving?: Promise<void>;

  constructor(
    private readonly nats: NatsClient,
    private readonly processor: MessageProcessor,
    private readonly applier: DeliveryApplier,
    private readonly commands: CommandWork,
    private readonly config: BaseConfig,
    @Inject(MESSAGING_OPTIONS) private readonly options: MessagingOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (!domainsOwnedBy(this.options.app).length) return;
    const sub = this.nats.nc.subscribe(this.nats.subject(replayFeedSubject(this.options.app)), {
      queue: this.nats.consumerName(this.options.app),
    });
    this.subscription = sub;
    this.serving = (async () => {
      for await (const msg of sub) await this.answer(msg);
    })();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.subscription?.drain().catch(() => undefined);
    await this.serving;
  }

  private async answer(msg: Msg): Promise<void> {
    let reply: CommandOutcome<{ results: ReplayFeedResult[] }>;
    try {
      const request = msg.json<ReplayFeedRequest>();
      reply = { ok: true, value: { results: await this.apply(request) } };
    } catch (error) {
      this.logger.warn(`a replay request failed: ${(error as Error).message}`);
      reply = { ok: false, error: { code: ErrorCode.Internal, message: (error as Error).message } };
    }
    msg.respond(JSON.stringify(reply));
  }

  private async apply(request: ReplayFeedRequest): Promise<ReplayFeedResult[]> {
    const owned = new Set<string>(domainsOwnedBy(this.options.app));
    const identities = request.commands.map(({ subject, envelope }) => {
      if (!owned.has(domainOf(subject)) || !subject.includes('.cmd.')) {
        throw new Error(`${subject} is not a command of ${this.options.app}`);
      }
      return commandIdentity(subject, envelope);
    });
    if (request.dryRun) {
      const recorded = await this.processor.findMany(identities.map((i) => i.id));
      return identities.map((i) => {
        const outcome = recorded.get(i.id);
        return outcome ? { outcome, applied: false } : { outcome: null, applied: false };
      });
    }
    const results = new Array<ReplayFeedResult>(identities.length);
    // Runs of commands with scopes (replayScopeOf) are spread over lanes by what they touch, each lane in order;
    // a command without one waits for everything before it and runs alone.
    let run: number[] = [];
    const flushRun = async () => {
      const scopeOf = (i: number) =>
        replayScopeOf(identities[i].subject, request.commands[i].envelope.payload)!;
      const lanes = lanesOf(run, scopeOf, this.config.COMMAND_LANES);
      await Promise.all(lanes.map((lane) => this.applyInOrder(lane, identities, request, results)));
      run = [];
    };
    for (const [i, identity] of identities.entries()) {
      if (replayScopeOf(identity.subject, request.commands[i].envelope.payload)) {
        run.push(i);
        continue;
      }
      await flushRun();
      await this.applyInOrder([i], identities, request, results);
    }
    await flushRun();
    return results;
  }

  /** Applies the commands at `indices`, in that order, in batches of COMMAND_BATCH_MAX as a lane cuts them. */
  private async applyInOrder(
    indices: number[],
    identities: MessageIdentity[],
    request: ReplayFeedRequest,
    results: ReplayFeedResult[],
  ): Promise<void> {
    let batch: { index: number; work: BatchItem }[] = [];
    const flush = async () => {
      if (!batch.length) return;
      const applied = await this.processor.processBatch(batch.map((b) => b.work));
      this.applier.committed(applied.filter((r): r is ProcessResult => !(r instanceof Error)));
      applied.forEach(
        (r, n) => (results[batch[n].index] = r instanceof Error ? { error: r.message } : feedResult(r)),
      );
      batch = [];
    };
    for (const index of indices) {
      const { envelope, decided } = request.commands[index];
      const work = await this.commands.of(identities[index], envelope, decided);
      if ('effect' in work) {
        batch.push({ index, work });
        if (batch.length >= this.config.COMMAND_BATCH_MAX) await flush();
        continue;
      }
      // Answered before it runs (an invalid payload): what came before it is applied first, so the order holds.
      await flush();
      results[index] = work instanceof Error ? { error: work.message } : feedResult(work);
    }
    await flush();
  }
}

/**
 * Groups `items` into lanes so that items whose scopes overlap, directly or through others, share a lane
 * (union-find over scope names), keeping their order; at most `max` lanes, groups dealt round-robin.
 */
export function lanesOf<T>(items: T[], scopeOf: (item: T) => string[], max: number): T[][] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let root = x;
    while (parent.get(root) !== root) root = parent.get(root)!;
    parent.set(x, root);
    return root;
  };
  const scopes = items.map(scopeOf);
  for (const scope of scopes) {
    for (const name of scope) if (!parent.has(name)) parent.set(name, name);
    for (const name of scope.slice(1)) parent.set(find(name), find(scope[0]));
  }
  const laneOfRoot = new Map<string, number>();
  const lanes: T[][] = [];
  items.forEach((item, i) => {
    const root = find(scopes[i][0]);
    if (!laneOfRoot.has(root)) laneOfRoot.set(root, laneOfRoot.size % max);
    (lanes[laneOfRoot.get(root)!] ??= []).push(item);
  });
  return lanes;
}

const feedResult = (r: ProcessResult): ReplayFeedResult => ({ outcome: r.outcome, applied: !r.duplicate });
