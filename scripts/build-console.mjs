// The last step of `npm run build`: the web console (apps/console, docs/adr/0029-web-console.md). Type-checks it
// with its own tsconfig (DOM, JSX, the contracts' types), then Vite builds it into dist/console, which the gateway
// serves at /console. Plain Node ESM, like the other build scripts.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const started = performance.now();
const tsc = spawnSync(
  process.execPath,
  [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'apps/console/tsconfig.json')],
  { stdio: 'inherit' },
);
if (tsc.status !== 0) {
  console.error('console: the type-check failed (tsc -p apps/console/tsconfig.json)');
  process.exit(tsc.status ?? 1);
}
await build({ configFile: join(ROOT, 'apps/console/vite.config.mjs') });
console.log(`console: built into dist/console in ${((performance.now() - started) / 1000).toFixed(1)}s`);
