import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import {
  HINTED_EVENTS,
  Headers,
  Subjects,
  hintSubject,
  type JobChangedEvent,
  type JobChangedManyEvent,
  type JobQueuedEvent,
  type JobQueuedManyEvent,
  type WorkerStopRequestedEvent,
} from '@app/contracts';
import { NatsClient } from '@app/messaging';
import { PollWatcher, Watcher, type ClaimedTake, type TakeOffer } from './watchers.js';

/** How many recent event ids are remembered to ignore the second copy of an event (hint, then relayed). */
const SEEN_EVENTS = 4096;

/**
 * Ends the gateway's long polls as soon as something happens. Each of the broker's events arrives twice: first as
 * the core NATS hint the broker publishes right after its commit, then relayed from the outbox through the events
 * stream (the durable path, if the hint was lost); the second copy of an event id is ignored. A queued job wakes ONE waiting job-take of its endpoint (the
 * longest waiting: jobs are spread over idle workers, not funnelled); a finished job or a new stream chunk wakes
 * its /runsync, /status-sync and /stream waiters; a stop request wakes the worker's job-stop.
 */
@Injectable()
export class JobSignals implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('job-signals');
  private readonly subscriptions: Subscription[] = [];
  private readonly queues = new Map<string, PollWatcher[]>();
  private readonly jobs = new Map<string, Set<Watcher>>();
  private readonly stops = new Map<string, Set<Watcher>>();
  private readonly closing = new AbortController();
  private readonly seen = new Set<string>();
  private readonly jobListeners: ((jobId: string, changed?: JobChangedEvent) => void)[] = [];
  private readonly queuedListeners: ((endpointId: string) => void)[] = [];

  constructor(private readonly nats: NatsClient) {}

  /** Aborted when the gateway shuts down: long polls answer at once. */
  get shutdown(): AbortSignal {
    return this.closing.signal;
  }

  onModuleInit(): void {
    const queued = (e: JobQueuedEvent) => {
      this.jobEvent(e.jobId);
      for (const listener of this.queuedListeners) listener(e.endpointId);
      this.wakeQueue(e.endpointId);
    };
    const changed = (e: JobChangedEvent) => {
      this.jobEvent(e.jobId, e);
      this.wakeAll(this.jobs, e.jobId);
    };
    this.listen(Subjects.job.queued, queued);
    this.listen(Subjects.job.changed, changed);
    // A command's jobs in one event: each as its own event would be, in order.
    this.listen(Subjects.job.queuedMany, (e: JobQueuedManyEvent) => e.jobs.forEach(queued));
    this.listen(Subjects.job.changedMany, (e: JobChangedManyEvent) => e.jobs.forEach(changed));
    this.listen(Subjects.worker.stopRequested, (e: WorkerStopRequestedEvent) =>
      this.wakeAll(this.stops, e.workerId),
    );
  }

  beforeApplicationShutdown(): void {
    this.closing.abort();
    for (const sub of this.subscriptions) sub.unsubscribe();
  }

  /**
   * Calls `listener` with the job id of every job event (queued again, changed: then with the event), before any
   * waiter wakes.
   */
  onJobEvent(listener: (jobId: string, changed?: JobChangedEvent) => void): void {
    this.jobListeners.push(listener);
  }

  /** Calls `listener` with the endpoint id of every job queued (submitted, retried, requeued), before waking. */
  onQueued(listener: (endpointId: string) => void): void {
    this.queuedListeners.push(listener);
  }

  /** A job-take poll's waiter; `offer` is the take a submit may carry for it while it waits (claimTake). */
  watchQueue(endpointId: string, offer: TakeOffer): PollWatcher {
    const list = this.queues.get(endpointId) ?? [];
    this.queues.set(endpointId, list);
    const watcher = new PollWatcher(offer, (w) => {
      const current = this.queues.get(endpointId);
      if (!current) return;
      const i = current.indexOf(w as PollWatcher);
      if (i >= 0) current.splice(i, 1);
      if (!current.length) this.queues.delete(endpointId);
    });
    list.push(watcher);
    return watcher;
  }

  /**
   * The longest-waiting job-take poll of the endpoint on this gateway, claimed for a submit: its take is piggy-backed on the
   * submit (SubmitJobCommand.take), and the poll waits for what that take leased instead of asking itself. Null
   * when no poll of the endpoint waits here. The caller must `deliver` or `release` what it claimed.
   */
  claimTake(endpointId: string): ClaimedTake | null {
    const list = this.queues.get(endpointId);
    const waiting = list?.find((w) => w.waiting && !w.claimed);
    if (!list || !waiting) return null;
    // It goes to the back, as a woken poll does: jobs are spread over idle workers.
    list.splice(list.indexOf(waiting), 1);
    list.push(waiting);
    return waiting.claim();
  }

  watchJob(jobId: string): Watcher {
    return this.watchIn(this.jobs, jobId);
  }

  watchStops(workerId: string): Watcher {
    return this.watchIn(this.stops, workerId);
  }

  private watchIn(map: Map<string, Set<Watcher>>, key: string): Watcher {
    const set = map.get(key) ?? new Set<Watcher>();
    map.set(key, set);
    const watcher = new Watcher((w) => {
      const current = map.get(key);
      current?.delete(w);
      if (current && !current.size) map.delete(key);
    });
    set.add(watcher);
    return watcher;
  }

  private jobEvent(jobId: string, changed?: JobChangedEvent): void {
    for (const listener of this.jobListeners) listener(jobId, changed);
  }

  /** Wakes the longest-waiting idle waiter; if none is waiting, every busy one re-asks when it is done. */
  private wakeQueue(endpointId: string): void {
    const list = this.queues.get(endpointId);
    if (!list?.length) return;
    const waiting = list.find((w) => w.waiting && !w.claimed);
    if (waiting) {
      // Longest waiting first; it goes to the back once it asks again.
      list.splice(list.indexOf(waiting), 1);
      list.push(waiting);
      waiting.fire();
      return;
    }
    for (const w of list) w.fire();
  }

  private wakeAll(map: Map<string, Set<Watcher>>, key: string): void {
    for (const w of map.get(key) ?? []) w.fire();
  }

  private listen<E>(subject: string, handle: (payload: E) => void): void {
    // Owners publish hints of these events only: a subject missing there would wake its waiters late, never fail.
    if (!HINTED_EVENTS.has(subject)) {
      throw new Error(`${subject} is not among HINTED_EVENTS (libs/contracts)`);
    }
    for (const wire of [hintSubject(subject), subject]) {
      const sub = this.nats.nc.subscribe(this.nats.subject(wire), {
        callback: (error, msg) => {
          if (error) return;
          // The relayed copy names its event in its header (the relay publishes it with the event id as
          // Nats-Msg-Id): one already seen as a hint is dropped without parsing its body.
          const relayedId = msg.headers?.get(Headers.MsgId);
          if (relayedId && this.seen.has(relayedId)) return;
          try {
            const event = msg.json<{ eventId: string; payload: E }>();
            if (this.firstSight(event.eventId)) handle(event.payload);
          } catch (parseError) {
            this.logger.warn(`unreadable ${wire} event: ${(parseError as Error).message}`);
          }
        },
      });
      this.subscriptions.push(sub);
    }
  }

  /** True the first time an event id is seen (a Set keeps insertion order: the oldest id goes first). */
  private firstSight(eventId: string): boolean {
    if (this.seen.has(eventId)) return false;
    this.seen.add(eventId);
    if (this.seen.size > SEEN_EVENTS) this.seen.delete(this.seen.values().next().value!);
    return true;
  }
}
