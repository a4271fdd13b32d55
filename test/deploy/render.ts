import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { K8sObject } from './manifest-checks.js';

/**
 * Renders kustomizations with the real kustomize, offline. There is no kustomize on npm and Debian's kubectl (1.20)
 * embeds kustomize v2, which has no components; so this uses, in order: `$KUSTOMIZE` (a kustomize v5 binary),
 * `kustomize` on PATH, or `kubectl kustomize` (kubectl >= 1.27 embeds kustomize v5; the machine image has one).
 */
export interface Renderer {
  /** What runs, for messages: `kubectl kustomize (Kustomize v5.5.0)`. */
  description: string;
  render(dir: string): string;
}

const MIN_KUSTOMIZE_MAJOR = 5;

function tryVersion(command: string, args: string[]): string | null {
  try {
    return execFileSync(command, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 10_000,
    });
  } catch {
    return null;
  }
}

function kustomizeMajor(versionText: string): number | null {
  const match = /(?:Kustomize Version:\s*|kustomize\/|^)v?(\d+)\.\d+\.\d+/m.exec(versionText);
  return match ? Number(match[1]) : null;
}

/** Finds a kustomize >= v5, or throws one line saying what to install. */
export function findRenderer(): Renderer {
  const candidates: { command: string; versionArgs: string[]; buildArgs: string[] }[] = [];
  if (process.env.KUSTOMIZE) {
    candidates.push({ command: process.env.KUSTOMIZE, versionArgs: ['version'], buildArgs: ['build'] });
  }
  candidates.push(
    { command: 'kustomize', versionArgs: ['version'], buildArgs: ['build'] },
    { command: 'kubectl', versionArgs: ['version', '--client'], buildArgs: ['kustomize'] },
  );
  const seen: string[] = [];
  for (const { command, versionArgs, buildArgs } of candidates) {
    const version = tryVersion(command, versionArgs);
    if (version === null) continue;
    const major = kustomizeMajor(version);
    seen.push(`${command}: kustomize v${major ?? '?'}`);
    if (major === null || major < MIN_KUSTOMIZE_MAJOR) continue;
    return {
      description: `${command} ${buildArgs.join(' ')} (kustomize v${major})`,
      render: (dir) =>
        execFileSync(command, [...buildArgs, dir], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
          timeout: 30_000,
          maxBuffer: 32 * 1024 * 1024,
        }),
    };
  }
  throw new Error(
    `no kustomize v${MIN_KUSTOMIZE_MAJOR}+ found (${seen.join(', ') || 'neither kustomize nor kubectl on PATH'}): ` +
      'install kubectl >= 1.27 or kustomize v5, or set KUSTOMIZE to its path',
  );
}

/** The objects of a multi-document YAML stream (empty documents skipped). */
export function parseManifests(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length) throw new Error(`invalid YAML: ${doc.errors[0].message}`);
      return doc.toJS() as unknown;
    })
    .filter((value): value is K8sObject => value !== null && typeof value === 'object');
}

/**
 * Renders `overlays/<name>` of a copy of `deployDir`, after writing `extraFiles` (paths relative to deployDir) into
 * the copy: the prod overlay reads a git-ignored secrets.env that the tests make from secrets.env.example.
 */
export function renderOverlay(
  renderer: Renderer,
  deployDir: string,
  overlay: string,
  extraFiles: Record<string, string> = {},
): K8sObject[] {
  const copy = mkdtempSync(join(tmpdir(), 'gpucp-deploy-'));
  try {
    cpSync(deployDir, copy, { recursive: true });
    for (const [path, content] of Object.entries(extraFiles)) writeFileSync(join(copy, path), content);
    return parseManifests(renderer.render(join(copy, 'overlays', overlay)));
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/**
 * secrets.env for rendering the prod overlay: the keys of secrets.env.example, with its values where it has one
 * and `fill[key]` where it leaves the value to the operator.
 */
export function secretsEnvFromExample(examplePath: string, fill: Record<string, string>): string {
  if (!existsSync(examplePath)) throw new Error(`${examplePath} is missing`);
  return readFileSync(examplePath, 'utf8')
    .split('\n')
    .map((line) => {
      const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
      if (!match || match[2] !== '') return line;
      const value = fill[match[1]];
      if (value === undefined) {
        throw new Error(`secrets.env.example leaves ${match[1]} empty and the test has no value`);
      }
      return `${match[1]}=${value}`;
    })
    .join('\n');
}

/**
 * The git-ignored files the prod overlay reads (secrets.env, nats-credentials.env), made from their examples with
 * the values an operator would fill in (fresh random ones); `fill` overrides them.
 */
export function prodSecretFiles(
  deployDir: string,
  fill: Record<string, string> = {},
): Record<string, string> {
  const natsPassword = () => `n${randomBytes(24).toString('base64url')}`;
  const values: Record<string, string> = {
    REGISTRY_AUTH_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    WORKER_KEY_RING: `w1:${randomBytes(32).toString('base64')}`,
    NATS_PASSWORD_GATEWAY: natsPassword(),
    NATS_PASSWORD_CLUSTER_SCHEDULER: natsPassword(),
    NATS_PASSWORD_POD_LIFECYCLE: natsPassword(),
    NATS_PASSWORD_QUEUE_BROKER: natsPassword(),
    NATS_PASSWORD_ENDPOINT_AUTOSCALER: natsPassword(),
    ...fill,
  };
  return Object.fromEntries(
    ['secrets.env', 'nats-credentials.env'].map((file) => [
      `overlays/prod/${file}`,
      secretsEnvFromExample(join(deployDir, `overlays/prod/${file}.example`), values),
    ]),
  );
}
