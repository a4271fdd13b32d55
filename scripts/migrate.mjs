// `npm run migrate`: installs dependencies, builds, makes sure PostgreSQL is up and the database exists (as
// `npm start` does), then runs every app's migrations in order. Environment: DATABASE_URL, or DATABASE_NAME
// (default gpucp) on the local server.
import {
  APPS,
  build,
  ensureAppDatabase,
  ensureDependencies,
  redact,
  runMain,
  runMigrations,
  step,
} from './lib/infra.mjs';

runMain(async () => {
  await step('dependencies', ensureDependencies);
  await step('build', build);
  const databaseUrl = await step('postgres', ensureAppDatabase);
  await step('migrate', () => runMigrations({ DATABASE_URL: databaseUrl }));
  console.log(`migrated ${redact(databaseUrl)}: ${APPS.map((app) => app.name).join(', ')}`);
  return 0;
});
