// Screenshots of the web console's pages into docs/console/ (docs/operations.md shows two): runs the console's
// browser tests (test/e2e/console.e2e-spec.ts, console-quotas.e2e-spec.ts, console-fleet.e2e-spec.ts,
// console-pods.e2e-spec.ts, console-templates.e2e-spec.ts) through `npm test`'s runner with CONSOLE_SCREENSHOTS set, so the
// pictures are of the real apps, with the data that test creates.
//   node scripts/console-screenshots.mjs
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const result = spawnSync(
  process.execPath,
  [
    'scripts/test.mjs',
    '--skip-lint',
    '--selectProjects',
    'e2e',
    '--testPathPatterns',
    'console(-quotas|-fleet|-pods|-templates)?\\.e2e-spec',
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, CONSOLE_SCREENSHOTS: 'docs/console' } },
);
process.exit(result.status ?? 1);
