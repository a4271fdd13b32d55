import { beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../support/paths.js';
import { loadApps } from './context.js';
import { type AppInfo, configVariables } from './manifest-checks.js';

/**
 * No Docker engine runs here, so the Dockerfile is checked statically: what it copies exists and is not
 * .dockerignored, it builds and prunes as intended, it runs as the non-root user the manifests expect, and the
 * entry points the manifests run are what `npm run build` produces (npm test builds before jest runs).
 */

const IMAGE = 'node:24-bookworm-slim';

interface Instruction {
  stage: number;
  keyword: string;
  args: string;
}

function parseDockerfile(text: string): Instruction[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  const instructions: Instruction[] = [];
  let stage = -1;
  for (const line of lines.map((l) => l.trim())) {
    if (!line || line.startsWith('#')) continue;
    const [, keyword, args] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    if (!keyword) throw new Error(`cannot parse Dockerfile line: ${line}`);
    if (keyword.toUpperCase() === 'FROM') stage += 1;
    instructions.push({ stage, keyword: keyword.toUpperCase(), args: args.trim() });
  }
  return instructions;
}

/** `COPY [--from=x] [--chown=..] a b dest` → flags, sources, destination. */
function parseCopy(args: string): { from?: string; sources: string[]; dest: string } {
  const words = args.startsWith('[') ? (JSON.parse(args) as string[]) : args.split(/\s+/);
  const flags = words.filter((w) => w.startsWith('--'));
  const paths = words.filter((w) => !w.startsWith('--'));
  const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
  return { from, sources: paths.slice(0, -1), dest: paths[paths.length - 1] };
}

/** .dockerignore patterns (Go filepath.Match plus `**`) as one predicate over context-relative paths. */
function dockerIgnore(text: string): (path: string) => boolean {
  const patterns = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((pattern) => {
      const negate = pattern.startsWith('!');
      const body = posix.normalize(pattern.replace(/^!/, '').replace(/^\/+/, ''));
      const source = body
        .split(/(\*\*\/|\*\*|\*|\?)/)
        .map((part) => {
          if (part === '**/') return '(?:.*/)?';
          if (part === '**') return '.*';
          if (part === '*') return '[^/]*';
          if (part === '?') return '[^/]';
          return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
        })
        .join('');
      return { negate, regex: new RegExp(`^${source}(?:/.*)?$`) };
    });
  return (path) =>
    patterns.reduce((ignored, { negate, regex }) => (regex.test(path) ? !negate : ignored), false as boolean);
}

describe('Dockerfile', () => {
  const instructions = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  const ignored = dockerIgnore(readFileSync(join(ROOT, '.dockerignore'), 'utf8'));
  const stages = instructions.filter((i) => i.keyword === 'FROM');
  const last = stages.length - 1;
  const runtime = instructions.filter((i) => i.stage === last);
  let apps: AppInfo[];

  beforeAll(async () => {
    apps = await loadApps(ROOT);
  });

  it(`builds every stage on ${IMAGE}`, () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const from of stages) expect(from.args.split(/\s+/)[0]).toBe(IMAGE);
  });

  it('installs the locked dependencies, builds, then drops the dev dependencies', () => {
    const runs = instructions.filter((i) => i.stage === 0 && i.keyword === 'RUN').map((i) => i.args);
    const at = (command: RegExp) => runs.findIndex((run) => command.test(run));
    expect(at(/\bnpm (ci|install)\b/)).toBeGreaterThanOrEqual(0);
    expect(at(/\bnpm run build\b/)).toBeGreaterThanOrEqual(at(/\bnpm (ci|install)\b/));
    expect(runs[at(/\bnpm run build\b/)]).toMatch(/npm run build[\s\S]*npm prune --omit=dev/);
  });

  it('copies only paths that exist and that .dockerignore lets into the context', () => {
    const problems: string[] = [];
    for (const copy of instructions.filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD')) {
      const { from, sources } = parseCopy(copy.args);
      if (from !== undefined) continue;
      for (const source of sources) {
        if (!existsSync(join(ROOT, source))) problems.push(`${source} does not exist`);
        else if (ignored(posix.normalize(source))) problems.push(`${source} is excluded by .dockerignore`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('copies every workspace package.json before installing (its dependency layer)', () => {
    const npmCi = instructions.findIndex((i) => i.keyword === 'RUN' && /\bnpm (ci|install)\b/.test(i.args));
    const copied = instructions
      .slice(0, npmCi)
      .filter((i) => i.keyword === 'COPY')
      .flatMap((i) => parseCopy(i.args).sources);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
    const workspaces = pkg.workspaces.flatMap((glob) => {
      const dir = glob.replace(/\/\*$/, '');
      return readdirSync(join(ROOT, dir))
        .filter((name) => existsSync(join(ROOT, dir, name, 'package.json')))
        .map((name) => `${dir}/${name}/package.json`);
    });
    expect(workspaces.length).toBeGreaterThan(0);
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', ...workspaces]));
  });

  it('ships dist, the production node_modules and the workspace libraries in the runtime stage', () => {
    const copies = runtime.filter((i) => i.keyword === 'COPY').map((i) => parseCopy(i.args));
    for (const path of ['/app/dist', '/app/node_modules', '/app/libs', '/app/package.json']) {
      expect(copies.filter((c) => c.from === 'build').flatMap((c) => c.sources)).toContain(path);
    }
    // ignored in the context, but the build stage makes them: dist and libs/*/dist
    expect(ignored('dist')).toBe(true);
  });

  it('runs as the non-root user the manifests expect', () => {
    const user = runtime.filter((i) => i.keyword === 'USER').pop()?.args ?? '';
    const uid = /^(\d+)(?::\d+)?$/.exec(user)?.[1];
    expect(uid).toBeDefined();
    expect(Number(uid)).toBeGreaterThan(0);
    for (const app of apps) {
      const docs = readFileSync(join(ROOT, 'deploy/base/apps', `${app.name}.yaml`), 'utf8')
        .split(/^---$/m)
        .map(
          (doc) =>
            parse(doc) as { kind: string; spec?: { template: { spec: { securityContext?: object } } } },
        );
      const deployment = docs.find((d) => d.kind === 'Deployment');
      expect(deployment?.spec?.template.spec.securityContext).toMatchObject({ runAsUser: Number(uid) });
    }
  });

  it('has in dist/ (after npm run build) every entry point the manifests run', () => {
    const missing = apps
      .flatMap((app) => [app.entry, app.migrate])
      .filter((entry) => !existsSync(join(ROOT, entry)));
    expect(missing).toEqual([]);
  });

  it("ships the data files the apps' config points at by default", () => {
    const destinations = runtime
      .filter((i) => i.keyword === 'COPY')
      .map((i) => posix.normalize(parseCopy(i.args).dest).replace(/\/$/, ''));
    const files = apps.flatMap((app) => {
      const defaults = new app.configClass() as Record<string, unknown>;
      return configVariables(app.configClass)
        .map((name) => defaults[name])
        .filter(
          (value): value is string => typeof value === 'string' && /^[\w.-]+\/[\w./-]+\.\w+$/.test(value),
        )
        .filter((path) => existsSync(join(ROOT, path)));
    });
    expect(files.length).toBeGreaterThan(0);
    const unshipped = files.filter(
      (file) => !destinations.some((d) => file === d || file.startsWith(`${d}/`)),
    );
    expect(unshipped).toEqual([]);
  });
});
