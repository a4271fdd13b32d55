/**
 * What `npm test` (scripts/test.mjs) hands the integration and e2e tests: a migrated database for the run, an
 * admin connection to make more, NATS and the run's NATS prefix. Test code is the one place besides
 * `loadConfig` that reads `process.env`; a test started some other way fails here with a line saying what to do.
 */
export interface TestEnv {
  /** The run's database, already migrated for every app. */
  databaseUrl: string;
  /** A connection allowed to CREATE and DROP DATABASE (the `postgres` database of the same server). */
  adminDatabaseUrl: string;
  natsUrl: string;
  /** The run's NATS prefix (`t<runId>`): prefixes of the systems that tests start derive from it. */
  natsPrefix: string;
  /** Letters and digits; part of the name of every database the run creates, so cleanup finds them. */
  runId: string;
  logLevel: string;
}

const HOW_TO_RUN =
  'run the tests with `npm test` (scripts/test.mjs), e.g. `npm test -- --selectProjects int`, which creates the ' +
  "run's database and NATS prefix";

function required(name: string, pattern?: RegExp, what?: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`test environment: ${name} is not set; ${HOW_TO_RUN}`);
  }
  if (pattern && !pattern.test(value)) {
    throw new Error(`test environment: ${name}=${JSON.stringify(value)} must be ${what}; ${HOW_TO_RUN}`);
  }
  return value;
}

let cached: TestEnv | undefined;

/** Reads and checks the environment on first use (so merely importing this module never throws). */
export function testEnv(): TestEnv {
  cached ??= {
    databaseUrl: required('DATABASE_URL', /^postgres(ql)?:\/\/\S+$/, 'a postgres:// URL'),
    adminDatabaseUrl: required('TEST_ADMIN_DATABASE_URL', /^postgres(ql)?:\/\/\S+$/, 'a postgres:// URL'),
    natsUrl: required('NATS_URL'),
    natsPrefix: required(
      'NATS_PREFIX',
      /^[A-Za-z][A-Za-z0-9]{0,23}$/,
      '1-24 letters or digits, starting with a letter',
    ),
    runId: required('TEST_RUN_ID', /^[a-z0-9]{1,16}$/, '1-16 lower-case letters or digits'),
    logLevel: process.env.LOG_LEVEL || 'warn',
  };
  return cached;
}
