import { describeMigrations } from '../../../../test/support/migration-checks.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';

/** pod-lifecycle's committed migrations, applied as a deployment applies them, against its entities and its outbox. */
describeMigrations('pod-lifecycle', DATA_SOURCE_SPEC);
