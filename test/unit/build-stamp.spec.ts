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
    ['package.json', true],
    ['package-lock.json', true],
    ['tsconfig.base.json', true],
    ['nest-cli.json', true],
    ['apps/gateway/src/main.ts', true],
    ['libs/messaging/src/command-bus.ts', true],
    ['tools/replay/replay.ts', true],
    ['scripts/bundle-apps.mjs', true],
    ['apps/gateway/README.md', true],
    ['README.md', false],
    ['CHANGELOG.md', false],
    ['docs/adr/0013-command-batching-and-lanes.md', false],
    ['bench/scenarios/jobs-sync.mjs', false],
    ['test/unit/build-stamp.spec.ts', false],
    ['deploy/kustomization.yaml', false],
  ])('%s is an input: %s', (path, input) => {
    expect(isBuildInput(path)).toBe(input);
  });
});
