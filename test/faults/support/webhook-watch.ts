import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { call, sleep } from './fault-calls.js';

/**
 * Where the fault scenarios' webhooks go: a receiver on 127.0.0.2 (the queue-broker is started with
 * WEBHOOK_ALLOWED_NETWORKS=127.0.0.2/32), recording every delivery it is sent. A delivery's `webhook-id` (Standard
 * Webhooks) is its row in the broker's webhook outbox, derived from the command that finished the job: the same id
 * twice is one delivery sent again (a replica killed between the POST and recording it), two ids for one job are
 * two terminal transitions of that job (a sweep or a result applied twice).
 */
export class WebhookReceiver {
  static readonly ALLOWED_NETWORKS = '127.0.0.2/32';
  /** Job id → every delivery received for it, in order. */
  readonly received = new Map<string, { webhookId: string; status: string; at: number }[]>();
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        try {
          const view = JSON.parse(body) as { id?: string; status?: string };
          const list = this.received.get(String(view.id)) ?? [];
          list.push({
            webhookId: String(req.headers['webhook-id']),
            status: String(view.status),
            at: Date.now(),
          });
          this.received.set(String(view.id), list);
          res.writeHead(200).end();
        } catch {
          res.writeHead(400).end();
        }
      });
    });
    const server = this.server;
    const port = await new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.2', () => resolve((server.address() as AddressInfo).port)),
    );
    this.url = `http://127.0.0.2:${port}/hook`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)));
  }
}

/** What became of the webhooks of a phase's jobs, from the receiver and the broker's webhook outbox. */
export interface WebhookOutcomes {
  /** Jobs submitted with a webhook. */
  jobs: number;
  /** Of those, jobs whose webhook never arrived (not yet, when asked before convergence). */
  missing: number;
  /** Jobs with more than one outbox row or more than one distinct `webhook-id` received: finished twice. */
  twice: number;
  /** Those jobs' ids. */
  twiceIds: string[];
  /** Deliveries received again with the same id (at least once delivery after a crash mid-delivery). */
  redelivered: number;
  /** Of those, redeliveries neither a recorded failed attempt nor a queue-broker kill of the phase explains. */
  redeliveredUnexplained: number;
  /** One line per job with an unexplained redelivery: its copies, when they arrived, its recorded attempts. */
  unexplainedDetail: string[];
  /** Deliveries whose body's status is not the one expected of the job. */
  wrongStatus: number;
}

/**
 * How long after a kill is recorded a POST the killed replica had already sent may still be read by the receiver:
 * it runs in this process, whose event loop also awaits the kill, so a request already in its socket can be handled
 * just after `brokerKilledAt` is taken. A survivor cannot send the same delivery again that soon: the killed
 * replica's claim holds it for WEBHOOK_TIMEOUT_MS + 5 s.
 */
const KILL_IN_FLIGHT_MS = 1000;

/**
 * Checks the webhooks of `expected` (job id → the final status its webhook must carry). A same-id redelivery is
 * explained by an attempt the broker recorded as failed although the receiver got it (a POST that timed out on a
 * loaded machine: the row counts more than one attempt), or by a queue-broker replica killed while that delivery
 * was in flight: its first copy arrived before `brokerKilledAt` (null: no broker was killed, so no kill explains
 * anything), give or take KILL_IN_FLIGHT_MS. Any other copy is unexplained.
 */
export async function webhookOutcomes(
  sql: pg.Pool,
  receiver: WebhookReceiver,
  expected: ReadonlyMap<string, string>,
  brokerKilledAt: number | null,
): Promise<WebhookOutcomes> {
  const ids = [...expected.keys()];
  const { rows } = await sql.query<{ job_id: string; n: string; attempts: number }>(
    `SELECT job_id, count(*) AS n, max(attempts)::int AS attempts FROM queue_broker.webhook_deliveries
      WHERE job_id = ANY($1) GROUP BY job_id`,
    [ids],
  );
  const outboxRows = new Map(rows.map((r) => [r.job_id, Number(r.n)]));
  // Attempts the broker recorded before the one that succeeded: each may have reached the receiver.
  const recordedRetries = new Map(rows.map((r) => [r.job_id, Math.max(0, r.attempts - 1)]));
  const outcomes: WebhookOutcomes = {
    jobs: ids.length,
    missing: 0,
    twice: 0,
    twiceIds: [],
    redelivered: 0,
    redeliveredUnexplained: 0,
    unexplainedDetail: [],
    wrongStatus: 0,
  };
  for (const [jobId, status] of expected) {
    const deliveries = receiver.received.get(jobId) ?? [];
    if (deliveries.length === 0) outcomes.missing++;
    const distinct = new Set(deliveries.map((d) => d.webhookId));
    if (distinct.size > 1 || (outboxRows.get(jobId) ?? 0) > 1) outcomes.twiceIds.push(jobId);
    const again = deliveries.length - distinct.size;
    outcomes.redelivered += again;
    const killExplains =
      brokerKilledAt !== null && again > 0 && deliveries[0].at <= brokerKilledAt + KILL_IN_FLIGHT_MS;
    const unexplained = killExplains ? 0 : Math.max(0, again - (recordedRetries.get(jobId) ?? 0));
    if (unexplained > 0) {
      outcomes.redeliveredUnexplained += unexplained;
      const since = (at: number) =>
        brokerKilledAt === null ? `${at}` : `kill${at >= brokerKilledAt ? '+' : ''}${at - brokerKilledAt} ms`;
      outcomes.unexplainedDetail.push(
        `job ${jobId}: ${deliveries.length} copies (${distinct.size} id(s)) at ${deliveries.map((d) => since(d.at)).join(', ')}; ` +
          `${(recordedRetries.get(jobId) ?? 0) + 1} attempt(s) recorded`,
      );
    }
    outcomes.wrongStatus += deliveries.filter((d) => d.status !== status).length;
  }
  outcomes.twice = outcomes.twiceIds.length;
  return outcomes;
}

/**
 * Jobs nobody takes, submitted with a `ttl` and a webhook so that the sweeps must expire them: one every `everyMs`,
 * round-robin over the gateways. `due` holds each accepted job's deadline, the earliest its ttl can pass (the time
 * its submission was sent plus the ttl).
 */
export class ExpiringJobs {
  readonly due = new Map<string, number>();

  constructor(private readonly plan: { count: number; everyMs: number; ttlMs: number }) {}

  /** Submits them; each accepted job is also put in `withWebhook` as one whose webhook must say TIMED_OUT. */
  async submit(
    target: { gateways: string[]; endpointId: string; key: string; receiver: WebhookReceiver },
    input: (n: number) => Record<string, unknown>,
    withWebhook: Map<string, string>,
  ): Promise<void> {
    const { gateways, endpointId, key, receiver } = target;
    for (let n = 0; n < this.plan.count; n++) {
      const sentAt = Date.now();
      const reply = await call('POST', `${gateways[n % gateways.length]}/v2/${endpointId}/run`, key, {
        input: input(n),
        policy: { ttl: this.plan.ttlMs },
        webhook: receiver.url,
      });
      if (reply.status === 200 && typeof reply.body?.id === 'string') {
        this.due.set(reply.body.id, sentAt + this.plan.ttlMs);
        withWebhook.set(reply.body.id, 'TIMED_OUT');
      }
      await sleep(this.plan.everyMs);
    }
  }

  /** How many of them are among `ids` (e.g. the jobs a phase finished twice). */
  among(ids: readonly string[]): number {
    return ids.filter((id) => this.due.has(id)).length;
  }

  /** How many fell due within [from, to]. */
  dueWithin(from: number, to: number): number {
    return [...this.due.values()].filter((due) => due >= from && due <= to).length;
  }

  /**
   * How late the sweeps expired them: for each job, the moment its terminal transition was committed (its webhook
   * outbox row's time) minus its deadline. The largest, in ms; 0 with no jobs; null when a job has no outbox row yet.
   */
  async maxLatenessMs(sql: pg.Pool): Promise<number | null> {
    if (this.due.size === 0) return 0;
    const { rows } = await sql.query<{ job_id: string; created_at: Date }>(
      `SELECT job_id, min(created_at) AS created_at FROM queue_broker.webhook_deliveries
        WHERE job_id = ANY($1) GROUP BY job_id`,
      [[...this.due.keys()]],
    );
    if (rows.length < this.due.size) return null;
    return Math.max(0, ...rows.map((r) => r.created_at.getTime() - this.due.get(r.job_id)!));
  }
}
