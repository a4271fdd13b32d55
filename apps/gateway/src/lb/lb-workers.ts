import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import { LB_WORKER_STATES, LbSubjects, type LbWorkerAnnouncement, type LbWorkerState } from '@app/contracts';
import { NatsClient } from '@app/messaging';
import type { LbCandidate } from './worker-pick.js';

interface Known {
  url: string;
  state: LbWorkerState;
  expiresAt: number;
}

/**
 * What this gateway replica knows of the load-balancing workers: pod-lifecycle polls each worker's `GET /ping` and
 * announces the result on core NATS (`lb.worker-state`, every poll); every replica subscribes (no queue group), so
 * each routes on the same set. A worker whose announcement runs out (`validForMs`) is out of the rotation: a
 * pod-lifecycle that went away takes its workers with it. A worker this replica could not reach is left out until
 * a newer announcement says it is ready again.
 */
@Injectable()
export class LbWorkers implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('lb');
  private readonly endpoints = new Map<string, Map<string, Known>>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private subscription?: Subscription;

  constructor(private readonly nats: NatsClient) {}

  onModuleInit(): void {
    this.subscription = this.nats.nc.subscribe(this.nats.subject(LbSubjects.workerState), {
      callback: (error, message) => {
        if (error) return;
        try {
          this.announced(message.json<LbWorkerAnnouncement>());
        } catch {
          this.logger.warn(`unreadable ${LbSubjects.workerState} message ignored`);
        }
      },
    });
  }

  beforeApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }

  announced(a: LbWorkerAnnouncement, now = Date.now()): void {
    if (typeof a?.endpointId !== 'string' || typeof a.podId !== 'string' || typeof a.url !== 'string') return;
    if (!LB_WORKER_STATES.includes(a.state)) return;
    let workers = this.endpoints.get(a.endpointId);
    if (!workers) this.endpoints.set(a.endpointId, (workers = new Map<string, Known>()));
    workers.set(a.podId, { url: a.url, state: a.state, expiresAt: now + Math.max(0, a.validForMs) });
    if (a.state === 'ready') this.wake(a.endpointId);
  }

  /** The endpoint's workers in rotation now. */
  ready(endpointId: string, now = Date.now()): LbCandidate[] {
    const workers = this.endpoints.get(endpointId);
    if (!workers) return [];
    const ready: LbCandidate[] = [];
    for (const [podId, known] of workers) {
      if (known.expiresAt <= now) workers.delete(podId);
      else if (known.state === 'ready') ready.push({ podId, url: known.url });
    }
    if (workers.size === 0) this.endpoints.delete(endpointId);
    return ready;
  }

  /** The last announced state of each of the endpoint's workers (by pod id), while fresh: the workers list shows it. */
  states(endpointId: string, now = Date.now()): Map<string, LbWorkerState> {
    const states = new Map<string, LbWorkerState>();
    for (const [podId, known] of this.endpoints.get(endpointId) ?? []) {
      if (known.expiresAt > now) states.set(podId, known.state);
    }
    return states;
  }

  /** The endpoints this replica has heard of workers of (maybe expired since). */
  endpointIds(): string[] {
    return [...this.endpoints.keys()];
  }

  /** This replica could not reach the worker: out of the rotation until pod-lifecycle says it is ready again. */
  unreachable(endpointId: string, podId: string): void {
    const known = this.endpoints.get(endpointId)?.get(podId);
    if (known) known.state = 'unhealthy';
  }

  /** Resolves when a worker of the endpoint is announced ready, or false after `timeoutMs` (or on abort). */
  waitForReady(endpointId: string, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    if (timeoutMs <= 0 || signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      let set = this.waiters.get(endpointId);
      if (!set) this.waiters.set(endpointId, (set = new Set()));
      const done = (ready: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', aborted);
        set.delete(wake);
        if (set.size === 0 && this.waiters.get(endpointId) === set) this.waiters.delete(endpointId);
        resolve(ready);
      };
      const wake = () => done(true);
      const aborted = () => done(false);
      const timer = setTimeout(() => done(false), timeoutMs);
      signal.addEventListener('abort', aborted, { once: true });
      set.add(wake);
    });
  }

  private wake(endpointId: string): void {
    for (const wake of [...(this.waiters.get(endpointId) ?? [])]) wake();
  }
}
