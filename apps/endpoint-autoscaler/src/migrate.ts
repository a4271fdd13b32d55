import { MigrationConfig } from '@app/config';
import { appDataSourceOptions, runAppMigrations } from '@app/database';
import { loadConfigOrExit } from '@app/platform';
import { DATA_SOURCE_SPEC } from './data-source.js';

/** Applies endpoint-autoscaler's pending migrations to its schema (`npm run migrate` runs this for every app). */
const config = loadConfigOrExit(MigrationConfig);
const applied = await runAppMigrations(
  appDataSourceOptions(DATA_SOURCE_SPEC, config.DATABASE_URL, 2, 'endpoint-autoscaler-migrate'),
);
process.stdout.write(
  `endpoint-autoscaler: ${applied.length ? `applied ${applied.join(', ')}` : 'schema endpoint_autoscaler is up to date'}\n`,
);
