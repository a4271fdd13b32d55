import { describeMigrations } from '../../../../test/support/migration-checks.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';

/** cluster-scheduler's committed migrations, applied as a deployment applies them, against its entities and its outbox. */
describeMigrations('cluster-scheduler', DATA_SOURCE_SPEC);
