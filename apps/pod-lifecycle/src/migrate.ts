import { MigrationConfig } from '@app/config';
import { appDataSourceOptions, runAppMigrations } from '@app/database';
import { loadConfigOrExit } from '@app/platform';
import { DATA_SOURCE_SPEC } from './data-source.js';

/** Applies pod-lifecycle's pending migrations to its schema (`npm run migrate` runs this for every app). */
const config = loadConfigOrExit(MigrationConfig);
const applied = await runAppMigrations(
  appDataSourceOptions(DATA_SOURCE_SPEC, config.DATABASE_URL, 2, 'pod-lifecycle-migrate'),
);
process.stdout.write(
  `pod-lifecycle: ${applied.length ? `applied ${applied.join(', ')}` : 'schema pod_lifecycle is up to date'}\n`,
);
