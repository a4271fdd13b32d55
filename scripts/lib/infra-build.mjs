import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLES, bundleFileOf, launcherOf } from './bundles.mjs';
import { ROOT, log, runChecked } from './infra-process.mjs';

// ---------------------------------------------------------------------------------------------------------------
// Dependencies and build

/**
 * Installs the locked dependencies when node_modules is missing or older than package-lock.json. `npm install`
 * rather than `npm ci`: the lock records only the platform packages the registry served (e.g. @swc/core's
 * linux-x64 build), and `npm ci` refuses a lock without every optional platform package.
 */
export async function ensureDependencies() {
  const installed = join(ROOT, 'node_modules', '.package-lock.json');
  const lock = join(ROOT, 'package-lock.json');
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs) {
    log('node_modules is up to date');
    return;
  }
  await runChecked('npm install', 'npm', ['install', '--no-audit', '--no-fund']);
}

/**
 * `npm run build`, unless dist/ was built from exactly these sources already: a build writes a stamp (a hash of its
 * inputs, below) to dist/.build-stamp, and a later `build()` whose inputs hash the same and whose outputs are all
 * there skips the build. CI (.ci/run) builds once in `npm test` and `npm run test:faults` reuses it (issue 16);
 * `npm test` or `npm run test:faults` alone, in a fresh clone or after any change, still builds.
 */
export async function build() {
  const stamp = buildStamp();
  if (stamp && readStamp() === stamp && buildOutputsExist()) {
    log(`dist/ is already built from these sources (stamp ${stamp.slice(0, 12)}): not building again`);
    return;
  }
  rmSync(BUILD_STAMP, { force: true });
  await runChecked('build', 'npm', ['run', 'build']);
  if (stamp && buildStamp() === stamp) writeFileSync(BUILD_STAMP, `${stamp}\n`);
}

const BUILD_STAMP = join(ROOT, 'dist', '.build-stamp');

function readStamp() {
  try {
    return readFileSync(BUILD_STAMP, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** What `npm run build` writes: every bundle and its launcher, the unbundled CLI, the console, every library's dist/. */
function buildOutputsExist() {
  const outputs = [
    ...BUNDLES.flatMap((target) => [launcherOf(target), bundleFileOf(target)]),
    'dist/tools/gpucp/gpucp.cli.js',
    'dist/console/index.html',
    ...readdirSync(join(ROOT, 'libs')).map((lib) => `libs/${lib}/dist`),
  ];
  return outputs.every((path) => existsSync(join(ROOT, path)));
}

// Where the build reads from: the apps, libraries and tools, the scripts, the root's configuration files
// (package.json, package-lock.json, tsconfig*.json, ...). Not test/, docs/, bench/ or deploy/, nor the root's
// Markdown (README.md): editing the documentation does not make the next `npm start` or bench build again.
const BUILD_INPUT_DIRS = new Set(['apps', 'libs', 'tools', 'scripts']);
/** Whether a tracked file (its path from the repository's root, `/`-separated) is one of the build's inputs. */
export const isBuildInput = (path) =>
  path.includes('/') ? BUILD_INPUT_DIRS.has(path.split('/')[0]) : !path.endsWith('.md');

/**
 * A sha256 over the build's inputs (path and content of every file git tracks or would track there), the installed
 * dependencies (node_modules/.package-lock.json) and the Node version; undefined outside a git checkout (then every
 * `build()` builds).
 */
function buildStamp() {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (listed.status !== 0) return undefined;
  const files = listed.stdout
    .toString('utf8')
    .split('\0')
    .filter((path) => path && isBuildInput(path))
    .sort();
  const hash = createHash('sha256').update(`node ${process.version}\n`);
  for (const path of [...files, 'node_modules/.package-lock.json']) {
    hash.update(`${path}\0`);
    try {
      hash.update(readFileSync(join(ROOT, path)));
    } catch {
      hash.update('(missing)'); // listed but deleted from the work tree
    }
    hash.update('\0');
  }
  return hash.digest('hex');
}
