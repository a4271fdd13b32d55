// Shared plumbing for the developer scripts (start, migrate, test): installs dependencies, builds, makes sure
// PostgreSQL and NATS JetStream are reachable (starting or installing them locally when that is safe), manages
// databases and JetStream streams, and runs the apps' migrations. Plain Node ESM on purpose: it must run before
// `npm ci` and the TypeScript build, so `pg` and the NATS packages are only imported inside the functions.
//
// Split by concern: infra-process (paths, output, child processes), infra-build, infra-postgres, infra-nats and
// infra-apps (readiness, browser, kustomize). Scripts import from here.
export {
  ROOT,
  LOCAL_DIR,
  APPS,
  InfraError,
  paint,
  log,
  step,
  concurrentSteps,
  printStepSummary,
  runMain,
  runningChildren,
  run,
  capture,
  runChecked,
} from './infra-process.mjs';
export { ensureDependencies, build, isBuildInput } from './infra-build.mjs';
export {
  redact,
  ensurePostgres,
  databaseUrlFor,
  createDatabase,
  dropDatabase,
  listDatabases,
  ensureAppDatabase,
  runMigrations,
} from './infra-postgres.mjs';
export { ensureNats, deleteNatsStreams } from './infra-nats.mjs';
export { waitForReady, ensureChromium, ensurePrometheus, ensureKustomize } from './infra-apps.mjs';
