import type { V1Node } from '@kubernetes/client-node';
import type pg from 'pg';
import type { HealthCode, HostState, HostView } from '@app/contracts';
import type { FakeKubeNodes, FakeNode } from '../../support/fake-kube-nodes.js';

/**
 * The nodes of the fleet-watch scenario (fleet-watch.fault-spec.ts) and what the scheduler must make of them: every
 * change goes through `put` and `delete`, which keep the model the hosts are compared with.
 */
export const A100 = 'NVIDIA A100 80GB PCIe';
export const H100 = 'NVIDIA H100 80GB HBM3';
/** The A100 product is mapped (KUBE_GPU_PRODUCT_MAP); the H100's matches its catalog id with dashes for spaces. */
export const PRODUCT_MAP = `NVIDIA-A100-SXM4-80GB=${A100}`;
const GPU_TYPES: Record<string, string> = { 'NVIDIA-A100-SXM4-80GB': A100, 'NVIDIA-H100-80GB-HBM3': H100 };
export const XID_CONDITION = 'SysLogsXIDError';

export interface ExpectedHost {
  id: string;
  state: HostState;
  gpuTypeId: string;
  gpuCount: number;
  dataCenterId: string;
  healthCode: HealthCode | null;
}

export class FleetNodes {
  /** Every node ever put, by name: its spec, or null once deleted. */
  private readonly specs = new Map<string, FakeNode | null>();
  /** Changes made (put of a known node, delete, put of a new one). */
  changes = 0;

  constructor(private readonly nodes: FakeKubeNodes) {}

  /** `fw-node-07`, an alternating zone and GPU type, 8 or 4 GPUs, an address of its own. */
  static spec(i: number): FakeNode {
    return {
      name: `fw-node-${String(i).padStart(2, '0')}`,
      zone: i % 2 ? 'US-TX-3' : 'EU-RO-1',
      product: i % 3 ? 'NVIDIA-A100-SXM4-80GB' : 'NVIDIA-H100-80GB-HBM3',
      gpus: i % 4 ? 8 : 4,
      internalIp: `10.0.0.${i}`,
      externalIp: `203.0.113.${i}`,
    };
  }

  spec(name: string): FakeNode {
    const spec = this.specs.get(name);
    if (!spec) throw new Error(`no node ${name}`);
    return spec;
  }

  /** Adds or changes a node; returns it as the API stores it (its uid and resourceVersion). */
  put(spec: FakeNode): V1Node {
    if (this.specs.has(spec.name)) this.changes += 1;
    this.specs.set(spec.name, spec);
    return this.nodes.put(spec);
  }

  /** The node as it is, with `change` on top. */
  change(name: string, change: Partial<FakeNode>): V1Node {
    return this.put({ ...this.spec(name), ...change });
  }

  delete(name: string): void {
    this.changes += 1;
    this.specs.set(name, null);
    this.nodes.delete(name);
  }

  names(): string[] {
    return [...this.specs.keys()].sort();
  }

  /** What each node's host must show: GONE once deleted; else UNHEALTHY, CORDONED or READY. */
  expected(): ExpectedHost[] {
    return this.names().map((id) => {
      const spec = this.specs.get(id);
      const last = spec ?? null;
      if (!last) return { id, state: 'GONE', gpuTypeId: '', gpuCount: 0, dataCenterId: '', healthCode: null };
      const healthCode = nodeHealth(last);
      return {
        id,
        state: healthCode ? 'UNHEALTHY' : last.unschedulable ? 'CORDONED' : 'READY',
        gpuTypeId: GPU_TYPES[last.product ?? ''],
        gpuCount: last.gpus ?? 8,
        dataCenterId: last.zone ?? '',
        healthCode,
      };
    });
  }
}

function nodeHealth(spec: FakeNode): HealthCode | null {
  if ((spec.ready ?? 'True') !== 'True') return 'NODE_NOT_READY';
  if (spec.conditions?.some((c) => c.type === XID_CONDITION && c.status === 'True')) return 'XID';
  if (spec.allocatable !== undefined && spec.allocatable < (spec.gpus ?? 8)) return 'GPU_UNHEALTHY';
  return null;
}

/**
 * Where the hosts differ from what their nodes say, a line each (empty: converged). A deleted node's host only has
 * to be GONE (it keeps its last shape); a host no node ever had is a difference too.
 */
export function differences(expected: ExpectedHost[], hosts: HostView[]): string[] {
  const byId = new Map(hosts.map((h) => [h.id, h]));
  const lines: string[] = [];
  for (const want of expected) {
    const host = byId.get(want.id);
    byId.delete(want.id);
    if (!host) {
      lines.push(`${want.id}: no host, want ${want.state}`);
      continue;
    }
    const got = {
      state: host.state,
      gpuTypeId: host.gpuTypeId,
      gpuCount: host.gpuCount,
      dataCenterId: host.dataCenterId,
      healthCode: host.state === 'UNHEALTHY' ? host.health.code : null,
    };
    const wanted =
      want.state === 'GONE'
        ? { ...got, state: 'GONE' }
        : {
            state: want.state,
            gpuTypeId: want.gpuTypeId,
            gpuCount: want.gpuCount,
            dataCenterId: want.dataCenterId,
            healthCode: want.healthCode,
          };
    if (JSON.stringify(got) !== JSON.stringify(wanted)) {
      lines.push(`${want.id}: ${JSON.stringify(got)}, want ${JSON.stringify(wanted)}`);
    }
  }
  for (const host of byId.values()) lines.push(`${host.id}: a host (${host.state}) no node ever had`);
  return lines;
}

export interface HostEvent {
  seq: number;
  hostId: string;
  previousState: HostState;
  state: HostState;
}

/** The scheduler's `fleet.evt.host-changed` events after outbox `seq` (its outbox keeps them), in order. */
export async function hostEvents(sql: pg.Pool, afterSeq: number): Promise<HostEvent[]> {
  const { rows } = await sql.query<{ seq: string; payload: Omit<HostEvent, 'seq'> }>(
    `SELECT seq, payload FROM cluster_scheduler.outbox
      WHERE subject = 'fleet.evt.host-changed' AND seq > $1 ORDER BY seq`,
    [afterSeq],
  );
  return rows.map((r) => ({
    seq: Number(r.seq),
    hostId: r.payload.hostId,
    previousState: r.payload.previousState,
    state: r.payload.state,
  }));
}

export async function lastOutboxSeq(sql: pg.Pool): Promise<number> {
  const { rows } = await sql.query<{ seq: string | null }>(
    'SELECT max(seq) AS seq FROM cluster_scheduler.outbox',
  );
  return Number(rows[0].seq ?? 0);
}

/**
 * Whether each host's events since a point chain from its state then (`before`, absent: GONE, a host new to the
 * fleet) to its state now: every event starts where the one before ended and changes the state. A command applied
 * twice against a state it no longer fits, or a stale one undoing a later one, breaks the chain or adds a
 * transition. Lines name what is wrong; `transitions` counts the events per host.
 */
export function chainFaults(
  events: HostEvent[],
  before: Map<string, HostState>,
  now: Map<string, HostState>,
): { lines: string[]; transitions: Map<string, number> } {
  const lines: string[] = [];
  const at = new Map(before);
  const transitions = new Map<string, number>();
  for (const e of events) {
    const from = at.get(e.hostId) ?? 'GONE';
    if (e.previousState !== from || e.state === e.previousState) {
      lines.push(`${e.hostId}: event ${e.previousState}→${e.state} (seq ${e.seq}) after ${from}`);
    }
    at.set(e.hostId, e.state);
    transitions.set(e.hostId, (transitions.get(e.hostId) ?? 0) + 1);
  }
  for (const [hostId, state] of now) {
    const last = at.get(hostId) ?? 'GONE';
    if (last !== state) lines.push(`${hostId}: its events end at ${last}, the host is ${state}`);
  }
  return { lines, transitions };
}

export interface WatchCommands {
  /** Fleet commands of the node watch the scheduler processed (each command id once: its primary key). */
  processed: number;
  /** Those refused (an outcome with ok false). */
  refused: number;
  /** Host changes (`changed: true`) of the same subject on the same host more than once. */
  repeated: string[];
}

/** The node watch's fleet commands the scheduler processed since `since` (its processed_commands). */
export async function watchCommands(sql: pg.Pool, since: Date): Promise<WatchCommands> {
  const { rows } = await sql.query<{
    subject: string;
    ok: boolean;
    host_id: string;
    changed: boolean | null;
  }>(
    `SELECT subject, (outcome->>'ok')::boolean AS ok, outcome->'value'->>'hostId' AS host_id,
            (outcome->'value'->>'changed')::boolean AS changed
       FROM cluster_scheduler.processed_commands
      WHERE actor_user_id = 'system:pod-lifecycle-node-watch' AND processed_at >= $1`,
    [since],
  );
  const changes = new Map<string, number>();
  for (const r of rows) {
    if (!r.changed) continue;
    const key = `${r.subject} ${r.host_id}`;
    changes.set(key, (changes.get(key) ?? 0) + 1);
  }
  return {
    processed: rows.length,
    refused: rows.filter((r) => !r.ok).length,
    repeated: [...changes].filter(([, n]) => n > 1).map(([key, n]) => `${key} changed the host ${n} times`),
  };
}
