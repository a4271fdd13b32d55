import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../support/paths.js';

const { isBuildInput } = (await import(pathToFileURL(join(ROOT, 'scripts', 'lib', 'infra.mjs')).href)) as {
  isBuildInput: (path: string) => boolean;
};

// The build stamp (scripts/lib/infra.mjs, `build()`) hashes the build's inputs: a change to one builds again, a
// change to anything else does not.
describe('the build stamp inputs', () => {
  it.each([
    'package.json',
    'package-lock.json',
    'tsconfig.base.json',
    'nest-cli.json',
    'apps/gateway/src/main.ts',
    'libs/messaging/src/command-bus.ts',
    'tools/replay/replay.ts',
    'scripts/bundle-apps.mjs',
    'apps/gateway/README.md',
  ])('%s is an input', (path) => {
    expect(isBuildInput(path)).toBe(true);
  });

  it.each([
    'README.md',
    'CHANGELOG.md',
    'docs/adr/0013-command-batching-and-lanes.md',
    'bench/scenarios/jobs-sync.mjs',
    'test/unit/build-stamp.spec.ts',
    'deploy/kustomization.yaml',
  ])('%s is not', (path) => {
    expect(isBuildInput(path)).toBe(false);
  });
});
