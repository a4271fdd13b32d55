// What scripts/bundle-apps.mjs writes, in one place: the bundler makes these files and the build stamp
// (scripts/lib/infra.mjs, buildOutputsExist) checks they are all there. No dependencies, so that plain scripts can
// import it before `npm ci`.
import { dirname, join } from 'node:path';

export const BUNDLED_APPS = [
  'gateway',
  'cluster-scheduler',
  'pod-lifecycle',
  'queue-broker',
  'endpoint-autoscaler',
];

/**
 * The bundled CLIs: the compiled entry, and the launcher written beside it (`<name>.mjs`, its bundle
 * `<name>.bundle.mjs`). Same directory as the entry, so paths a CLI derives from its own URL stay the same.
 */
export const CLIS = [
  ...BUNDLED_APPS.map((app) => ({ name: 'migrate', entry: `dist/apps/${app}/migrate.js` })),
  { name: 'keys', entry: 'dist/apps/gateway/cli/keys.cli.js' },
  { name: 'replay', entry: 'dist/tools/replay/replay.cli.js' },
];

/** Every bundle: each app's server (entry main.js) and each CLI. */
export const BUNDLES = [
  ...BUNDLED_APPS.map((app) => ({ name: 'server', entry: `dist/apps/${app}/main.js` })),
  ...CLIS,
];

/** Where a bundle's launcher is: dist/<dir of its entry>/<name>.mjs. */
export const launcherOf = ({ name, entry }) => join(dirname(entry), `${name}.mjs`);
/** The bundle itself, beside its launcher. */
export const bundleFileOf = ({ name, entry }) => join(dirname(entry), `${name}.bundle.mjs`);
