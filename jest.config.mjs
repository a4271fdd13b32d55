// Jest for an ESM-only NestJS 12 tree. Run it through `npm test` (scripts/test.mjs), which builds, creates the
// run's database and NATS prefix and starts jest as
// `node --experimental-vm-modules node_modules/jest/bin/jest.js`; Nest 12 does not load without that flag.
//
// Projects (pick with `--selectProjects unit int e2e`):
//   unit  `**/*.spec.ts`           no I/O, next to the code they test
//   int   `**/*.int-spec.ts`       real Postgres and NATS, a database of their own (test/support)
//   e2e   `test/**/*.e2e-spec.ts`  the built apps as child processes (test/support/system.ts)
//   faults `test/faults/**/*.fault-spec.ts`  fault injection against a private NATS and Postgres; only through
//         `npm run test:faults` (scripts/test-faults.mjs), which starts those; `npm test` leaves it out
//
// TypeScript is compiled by @swc/jest (no type-check here: `tsc -p tsconfig.test.json` does that), with legacy
// decorators and decorator metadata as tsc emits them for Nest, class-validator and TypeORM.

/** @type {import('@swc/core').Options} */
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: {
      legacyDecorator: true,
      decoratorMetadata: true,
      // tsc's default for target >= ES2022, so class fields behave the same in tests and in dist/.
      useDefineForClassFields: true,
    },
    keepClassNames: true,
    target: 'es2022',
  },
  module: { type: 'es6' },
  sourceMaps: 'inline',
};

/** @type {import('jest').Config} */
const common = {
  rootDir: import.meta.dirname,
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools', '<rootDir>/test'],
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  // `js` before `ts`: a package in node_modules importing `./x.js` keeps getting x.js even if it ships x.ts.
  moduleFileExtensions: ['js', 'ts', 'mjs', 'cjs', 'json', 'node'],
  moduleNameMapper: {
    '^@app/(.*)$': '<rootDir>/libs/$1/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  // What every entry point (main.ts, migrate.ts, index.ts of the libraries) loads first; a spec importing one
  // module directly (a DTO with @Type, say) needs it too.
  setupFiles: ['reflect-metadata'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/libs/[^/]+/dist/', '<rootDir>/\\.local/'],
  watchPathIgnorePatterns: ['/node_modules/', '/dist/', '<rootDir>/\\.local/'],
};

/** @type {import('jest').Config} */
export default {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,tools,test}/**/*.spec.ts'],
    },
    {
      ...common,
      displayName: 'int',
      testMatch: ['<rootDir>/{apps,libs,tools,test}/**/*.int-spec.ts'],
      // A project-level `testTimeout` is ignored by jest-circus (it reads only the global one), hence a setup file.
      setupFilesAfterEnv: ['<rootDir>/test/support/timeout-60s.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/timeout-60s.ts'],
    },
    {
      ...common,
      displayName: 'faults',
      testMatch: ['<rootDir>/test/faults/**/*.fault-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/faults/support/timeout-faults.ts'],
    },
  ],
};
