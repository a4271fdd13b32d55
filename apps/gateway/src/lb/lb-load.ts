import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { LbSubjects, type LbEndpointLoad, type LbLoadReport } from '@app/contracts';
import { NatsClient } from '@app/messaging';
import { GatewayConfig } from '../gateway.config.js';

interface EndpointCounts {
  inFlight: number;
  waiting: number;
  workers: Map<string, number>;
}

/**
 * The requests this replica holds for load-balancing endpoints: in flight per worker (the least-outstanding pick
 * reads it) and waiting for a cold start. Every LB_REPORT_MS the whole picture goes out on core NATS
 * (`lb.load`): the autoscaler sizes LB endpoints from the sum over the replicas, and pod-lifecycle stops a
 * draining worker only once no replica reports a request in flight on it.
 */
@Injectable()
export class LbLoad implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('lb');
  private readonly gatewayId = randomUUID();
  private readonly endpoints = new Map<string, EndpointCounts>();
  private readonly perWorker = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly nats: NatsClient,
    @Inject(GatewayConfig) private readonly config: GatewayConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.report(), this.config.LB_REPORT_MS);
    this.timer.unref();
  }

  beforeApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** In-flight requests of each worker on this replica. */
  get outstanding(): ReadonlyMap<string, number> {
    return this.perWorker;
  }

  /** A request waits for a ready worker; call the returned function once it stops waiting. */
  waiting(endpointId: string): () => void {
    const counts = this.counts(endpointId);
    counts.waiting += 1;
    // The first request of a cold start: the autoscaler hears of it now, not at the next interval.
    if (counts.waiting === 1) this.report();
    return once(() => {
      counts.waiting -= 1;
      this.forget(endpointId, counts);
    });
  }

  /** A request goes to a worker; call the returned function once its response is over (or failed). */
  started(endpointId: string, podId: string): () => void {
    const counts = this.counts(endpointId);
    counts.inFlight += 1;
    counts.workers.set(podId, (counts.workers.get(podId) ?? 0) + 1);
    this.perWorker.set(podId, (this.perWorker.get(podId) ?? 0) + 1);
    return once(() => {
      counts.inFlight -= 1;
      decrement(counts.workers, podId);
      decrement(this.perWorker, podId);
      this.forget(endpointId, counts);
    });
  }

  /** The report as it would go out now (every endpoint with a request in flight or waiting). */
  snapshot(): LbLoadReport {
    const endpoints: LbEndpointLoad[] = [...this.endpoints].map(([endpointId, c]) => ({
      endpointId,
      inFlight: c.inFlight,
      waiting: c.waiting,
      workers: Object.fromEntries(c.workers),
    }));
    return { gatewayId: this.gatewayId, intervalMs: this.config.LB_REPORT_MS, endpoints };
  }

  private report(): void {
    try {
      this.nats.nc.publish(this.nats.subject(LbSubjects.load), JSON.stringify(this.snapshot()));
    } catch (error) {
      this.logger.warn(`could not publish ${LbSubjects.load}: ${(error as Error).message}`);
    }
  }

  private counts(endpointId: string): EndpointCounts {
    let counts = this.endpoints.get(endpointId);
    if (!counts) this.endpoints.set(endpointId, (counts = { inFlight: 0, waiting: 0, workers: new Map() }));
    return counts;
  }

  private forget(endpointId: string, counts: EndpointCounts): void {
    if (counts.inFlight === 0 && counts.waiting === 0 && this.endpoints.get(endpointId) === counts) {
      this.endpoints.delete(endpointId);
    }
  }
}

function decrement(map: Map<string, number>, key: string): void {
  const left = (map.get(key) ?? 0) - 1;
  if (left > 0) map.set(key, left);
  else map.delete(key);
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
