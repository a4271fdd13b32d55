import { describeMigrations } from '../../../../test/support/migration-checks.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';

/** gateway's committed migrations, applied as a deployment applies them, against its entities and its outbox. */
describeMigrations('gateway', DATA_SOURCE_SPEC);
