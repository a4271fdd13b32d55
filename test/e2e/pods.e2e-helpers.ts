import { randomUUID } from 'node:crypto';
import { expect } from '@jest/globals';
import { DeliverPolicy, jetstream, type ConsumerMessages } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  ErrorCode,
  Headers,
  PodStatus,
  Subjects,
  type ClusterCreatedEvent,
  type CommandEnvelope,
  type CommandOutcome,
  type PodView,
  type ReservePodCommand,
} from '@app/contracts';
import type { RunningSystem } from '../support/system.js';
import { testEnv } from '../support/test-env.js';

/** Helpers of the pods, templates and registry-credential e2e tests (not a test file itself). */

export interface Reply<T = Record<string, unknown>> {
  status: number;
  contentType: string;
  body: T;
  text: string;
}

/** A caller of the gateway with one API key. */
export function client(system: RunningSystem, key: string) {
  return async function call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${system.url('gateway')}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = {};
    }
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      body: parsed as T,
      text,
    };
  };
}
export type Call = ReturnType<typeof client>;

export function expectProblem<T>(reply: Reply<T>, status: number, detail?: RegExp): void {
  expect({ status: reply.status, body: reply.body }).toEqual({
    status,
    body: expect.objectContaining({ title: expect.any(String), status, detail: expect.any(String) }),
  });
  expect(reply.contentType).toMatch(/^application\/problem\+json/);
  if (detail) expect((reply.body as { detail?: unknown }).detail).toMatch(detail);
}

export async function getPod(call: Call, podId: string): Promise<PodView> {
  const reply = await call<PodView>('GET', `/v1/pods/${podId}`);
  expect(reply.status).toBe(200);
  return reply.body;
}

/** Polls the pod until `predicate` holds; fails with the last pod seen. */
export async function waitForPod(
  call: Call,
  podId: string,
  predicate: PodStatus | ((pod: PodView) => boolean),
  timeoutMs = 15_000,
): Promise<PodView> {
  const test = typeof predicate === 'string' ? (pod: PodView) => pod.status === predicate : predicate;
  const deadline = Date.now() + timeoutMs;
  let last: PodView | undefined;
  while (Date.now() < deadline) {
    last = await getPod(call, podId);
    if (test(last)) return last;
    await sleep(100);
  }
  throw new Error(
    `pod ${podId} did not get there within ${timeoutMs} ms; last seen: ${JSON.stringify(last)}`,
  );
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value) return value;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Stands in for cluster-scheduler's placement consumer (`placement.cmd.reserve` / `release`) in tests of
 * pod-lifecycle alone: it reads those commands from the commands stream and answers their outcomes the way the
 * scheduler does: a pinned reserve (`hostId`) lands on that host, others on `host-a` (`host-b` when the
 * data centers asked for include `EU-HOST-B`); a pod listed in `refuse`
 * gets CAPACITY_UNAVAILABLE.
 */
export class PlacementStandIn {
  readonly refuse = new Set<string>();
  readonly reserves: ReservePodCommand[] = [];
  private nc?: NatsConnection;
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;
  private nextPort = 40000;

  constructor(private readonly prefix: string) {}

  async start(): Promise<this> {
    this.nc = await connect({ servers: testEnv().natsUrl.split(','), timeout: 5000 });
    const js = jetstream(this.nc);
    const consumer = await js.consumers.get(`${this.prefix}_COMMANDS`, {
      filter_subjects: `${this.prefix}.placement.cmd.>`,
      deliver_policy: DeliverPolicy.New,
    });
    const messages = await consumer.consume();
    this.messages = messages;
    this.loop = (async () => {
      for await (const msg of messages) {
        const envelope = msg.json<CommandEnvelope<ReservePodCommand>>();
        // As an owner does: to the issuer's inbox when the command names one, else to outcome.<commandId>.
        const inbox = msg.headers?.get(Headers.OutcomeTo);
        this.nc!.publish(
          inbox ? `${inbox}.${envelope.commandId}` : `${this.prefix}.outcome.${envelope.commandId}`,
          JSON.stringify(this.answer(envelope)),
        );
      }
    })();
    return this;
  }

  async stop(): Promise<void> {
    this.messages?.stop();
    await this.loop;
    await this.nc?.close();
  }

  private answer(envelope: CommandEnvelope<ReservePodCommand>): CommandOutcome {
    if (envelope.subject !== 'placement.cmd.reserve') return { ok: true, value: null };
    const p = envelope.payload;
    this.reserves.push(p);
    if (this.refuse.has(p.podId)) {
      return {
        ok: false,
        error: {
          code: ErrorCode.CapacityUnavailable,
          message: `host ${p.hostId ?? 'any'} has no free ${p.gpuTypeId ?? 'CPU'} now`,
        },
      };
    }
    return {
      ok: true,
      value: {
        podId: p.podId,
        hostId: p.hostId ?? (p.dataCenterIds?.includes('EU-HOST-B') ? 'host-b' : 'host-a'),
        dataCenterId: 'EU-TEST-1',
        publicIp: '203.0.113.10',
        gpuTypeId: p.gpuTypeId ?? null,
        gpuCount: p.gpuCount,
        portMappings: Object.fromEntries(p.ports.map((port) => [port, this.nextPort++])),
      },
    };
  }
}

/** Every message currently in a stream (optionally filtered), read with an ordered consumer. */
export async function readStream(
  streamName: string,
  filter?: string,
): Promise<{ subject: string; data: string }[]> {
  const nc = await connect({ servers: testEnv().natsUrl.split(','), timeout: 5000 });
  try {
    const js = jetstream(nc);
    const consumer = await js.consumers.get(streamName, filter ? { filter_subjects: filter } : {});
    const pending = (await consumer.info()).num_pending;
    const out: { subject: string; data: string }[] = [];
    while (out.length < pending) {
      const batch = await consumer.fetch({ max_messages: pending - out.length, expires: 2000 });
      let got = 0;
      for await (const msg of batch) {
        out.push({ subject: msg.subject, data: msg.string() });
        got += 1;
      }
      if (got === 0) break;
    }
    return out;
  } finally {
    await nc.close();
  }
}

/** The status-changed events of the system so far, for one pod (oldest first). */
export async function statusEvents(
  prefix: string,
  podId: string,
): Promise<{ status: string; previousStatus: string | null }[]> {
  const messages = await readStream(`${prefix}_EVENTS`, `${prefix}.pod.evt.status-changed`);
  return messages
    .map(
      (m) =>
        (JSON.parse(m.data) as { payload: { podId: string; status: string; previousStatus: string | null } })
          .payload,
    )
    .filter((e) => e.podId === podId)
    .map(({ status, previousStatus }) => ({ status, previousStatus }));
}

/** Publishes an event onto the events stream as an owner's outbox does (cluster.evt.created, say). */
export async function publishEvent(prefix: string, subject: string, payload: unknown): Promise<void> {
  const nc = await connect({ servers: testEnv().natsUrl.split(','), timeout: 5000 });
  try {
    const eventId = randomUUID();
    const envelope = {
      eventId,
      subject,
      occurredAt: new Date().toISOString(),
      correlationId: `test-${eventId}`,
      payload,
    };
    await jetstream(nc).publish(`${prefix}.${subject}`, JSON.stringify(envelope), { msgID: eventId });
  } finally {
    await nc.close();
  }
}

/**
 * A one-member cluster of `ownerId`'s as cluster-scheduler announces it (`cluster.evt.created`), for tests that
 * run pod-lifecycle without the scheduler: pod-lifecycle creates member pod `<clusterId>-pod-0`, whose id this
 * answers once `call` (the owner) can read it. With `sshPort` the member exposes 22/tcp on that public port.
 */
export async function announceClusterMember(
  system: RunningSystem,
  call: Call,
  clusterId: string,
  ownerId: string,
  sshPort?: number,
): Promise<string> {
  const memberId = `${clusterId}-pod-0`;
  const created: ClusterCreatedEvent = {
    clusterId,
    ownerId,
    members: [
      {
        podId: memberId,
        rank: 0,
        role: 'primary',
        name: 'member',
        placement: {
          podId: memberId,
          hostId: 'host-0',
          dataCenterId: 'EU-RO-1',
          publicIp: '198.51.100.1',
          gpuTypeId: 'NVIDIA H100 80GB HBM3',
          gpuCount: 8,
          portMappings: sshPort ? { '22/tcp': sshPort } : {},
        },
        image: 'runpod/pytorch:2.4.0',
        env: {},
        ports: sshPort ? ['22/tcp'] : [],
        disk: 50,
        startJupyter: false,
        overlayIp: '10.128.0.1',
      },
    ],
  };
  await publishEvent(system.natsPrefix, Subjects.cluster.created, created);
  await until('the member', async () => (await call('GET', `/v1/pods/${memberId}`)).status === 200);
  return memberId;
}
