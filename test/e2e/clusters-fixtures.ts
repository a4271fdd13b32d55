import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { jetstream } from '@nats-io/jetstream';
import { connect, headers as natsHeaders } from '@nats-io/transport-node';
import pg from 'pg';
import type { PodStatus, PodStatusChangedEvent } from '@app/contracts';
import { ROOT } from '../support/paths.js';
import { testEnv } from '../support/test-env.js';

/** Helpers shared by the cluster e2e tests (clusters*.e2e-spec.ts). */

export const A100 = 'NVIDIA A100 80GB PCIe';
export const H100 = 'NVIDIA H100 80GB HBM3';
export const RTX4090 = 'NVIDIA GeForce RTX 4090';

interface FleetHostSpec {
  id: string;
  dataCenterId: string;
  gpuTypeId: string | null;
  gpuCount: number;
  cpuSlots?: number;
  ports?: number;
}

/** Writes a small fleet file (three data centers, three GPU types, the given hosts) and returns its path. */
export function writeFleet(hosts: FleetHostSpec[]): string {
  const fleet = {
    version: 1,
    gpuTypes: [
      {
        id: RTX4090,
        displayName: 'RTX 4090',
        manufacturer: 'Nvidia',
        memoryInGb: 24,
        maxCount: 4,
        tier: 'ADA_24',
      },
      {
        id: A100,
        displayName: 'A100 PCIe',
        manufacturer: 'Nvidia',
        memoryInGb: 80,
        maxCount: 8,
        tier: 'AMPERE_80',
      },
      {
        id: H100,
        displayName: 'H100 SXM',
        manufacturer: 'Nvidia',
        memoryInGb: 80,
        maxCount: 8,
        tier: 'ADA_80_PRO',
        pricePerHr: 2.49,
      },
    ],
    cpuTypes: [{ id: 'cpu3c', displayName: 'Compute-Optimized', cores: 64, threadsPerCore: 2 }],
    dataCenters: [
      { id: 'US-TX-3', name: 'Texas 3', region: 'US' },
      { id: 'EU-RO-1', name: 'Romania 1', region: 'RO' },
      { id: 'EU-CZ-1', name: 'Czechia 1', region: 'CZ' },
    ],
    hosts: hosts.map((h, i) => ({
      id: h.id,
      dataCenterId: h.dataCenterId,
      gpuTypeId: h.gpuTypeId,
      gpuCount: h.gpuCount,
      cpuTypeId: 'cpu3c',
      cpuSlots: h.cpuSlots ?? 0,
      publicIp: `203.0.113.${(i % 250) + 1}`,
      portRange: [20000, 20000 + (h.ports ?? 100) - 1],
    })),
  };
  const dir = mkdtempSync(join(tmpdir(), 'fleet-'));
  const path = join(dir, 'fleet.json');
  writeFileSync(path, JSON.stringify(fleet));
  return path;
}

/** `REGISTRY_AUTH_KEYS` for the gateway. */
export function registryAuthKeys(): string {
  return `k1:${randomBytes(32).toString('base64')}`;
}

const run = promisify(execFile);

/** A rate-limit-exempt user with a full-access key, through the operators' CLI. */
export async function createUserWithKey(
  databaseUrl: string,
  name: string,
): Promise<{ userId: string; key: string }> {
  const cli = join(ROOT, 'dist', 'apps', 'gateway', 'cli', 'keys.mjs');
  const env = { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl };
  await run(process.execPath, [cli, 'user', 'create', name, '--exempt'], { cwd: ROOT, env });
  const { stdout } = await run(process.execPath, [cli, 'key', 'create', name, '--json'], { cwd: ROOT, env });
  const issued = JSON.parse(stdout.trim()) as { key: string; userId: string };
  return { userId: issued.userId, key: issued.key };
}

export interface ApiResponse<T = unknown> {
  status: number;
  contentType: string;
  body: T;
}

/** A JSON request to the gateway with a bearer key. */
export async function api<T = unknown>(
  baseUrl: string,
  key: string | null,
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    body: (text ? JSON.parse(text) : null) as T,
  };
}

/** An OpenSSH ed25519 public key line. */
export function sshPublicKey(comment = 'test@example'): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const part = (b: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(b.length);
    return Buffer.concat([len, b]);
  };
  const blob = Buffer.concat([part(Buffer.from('ssh-ed25519')), part(raw)]);
  return `ssh-ed25519 ${blob.toString('base64')} ${comment}`;
}

/**
 * Publishes a pod status event onto the system's events stream, as pod-lifecycle's outbox relay does
 * (`<prefix>.pod.evt.status-changed`, `Nats-Msg-Id` = event id). Returns the event id.
 */
export async function publishPodStatus(
  prefix: string,
  event: Partial<PodStatusChangedEvent> & { podId: string; status: PodStatus },
  eventId: string = randomUUID(),
): Promise<string> {
  const nc = await connect({ servers: testEnv().natsUrl.split(','), timeout: 5000 });
  try {
    const payload: PodStatusChangedEvent = {
      ownerId: 'unknown',
      clusterId: null,
      rank: null,
      previousStatus: null,
      hostId: null,
      publicIp: null,
      portMappings: {},
      at: new Date().toISOString(),
      ...event,
    };
    const h = natsHeaders();
    h.set('x-correlation-id', `test-${eventId}`);
    await jetstream(nc).publish(
      `${prefix}.pod.evt.status-changed`,
      JSON.stringify({
        eventId,
        subject: 'pod.evt.status-changed',
        occurredAt: payload.at,
        correlationId: `test-${eventId}`,
        payload,
      }),
      { msgID: eventId, headers: h },
    );
  } finally {
    await nc.close();
  }
  return eventId;
}

/** Queries the scheduler's schema directly (the tests' view of what is really reserved). */
export async function sql<T = Record<string, unknown>>(
  databaseUrl: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SET search_path TO cluster_scheduler');
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Polls `probe` until it returns a value that is not undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
}
