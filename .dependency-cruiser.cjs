/* global module */
// Boundaries (docs/architecture.md, "Boundaries"), checked by `node scripts/check-boundaries.mjs`, which `npm run
// lint` and the lint step of `npm test` run after eslint. That script also checks what dependency-cruiser's rules
// cannot say: no cycles between the feature folders of an app (apps/<app>/src/<feature>/, subfolders included),
// with the app's composition root (app.module, main, migrate, data-source) as one more node.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-app-to-app',
      comment: 'Apps talk over the bus, never by importing each other: share through a library (@app/<lib>).',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'no-lib-to-app',
      comment: 'Libraries are below every app: a library never imports an app.',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'lib-through-its-index',
      comment: 'A library is imported only as @app/<name> (its src/index.ts), never by a path into it.',
      severity: 'error',
      from: { path: '^(apps|tools|test)/' },
      to: { path: '^libs/[^/]+/', pathNot: '^libs/[^/]+/src/index\\.ts$' },
    },
    {
      name: 'lib-to-lib-through-its-index',
      comment: 'One library uses another only as @app/<name> (its src/index.ts).',
      severity: 'error',
      from: { path: '^libs/([^/]+)/' },
      to: { path: '^libs/', pathNot: ['^libs/$1/', '^libs/[^/]+/src/index\\.ts$'] },
    },
    {
      name: 'feature-public-surface',
      comment:
        "A feature's public surface is the files at its root (apps/<app>/src/<feature>/*.ts: its module, entities, " +
        'repositories, rules); its use-case folders are private to it. Move what another feature needs to the root.',
      severity: 'error',
      from: { path: '^apps/([^/]+)/src/([^/]+)/' },
      to: { path: '^apps/$1/src/[^/]+/[^/]+/', pathNot: '^apps/$1/src/$2/' },
    },
    {
      name: 'app-root-leaves-or-wiring',
      comment:
        "An app's root files are its composition root: its Nest modules, main, migrate and data source wire the " +
        'features together and may import them; every other root file (config, schema, clock) is a leaf the ' +
        'features share, and imports no feature (else a feature could reach another through it unseen).',
      severity: 'error',
      from: {
        path: '^apps/[^/]+/src/[^/]+\\.ts$',
        pathNot: '(\\.module|/main|/migrate|/data-source)\\.ts$|\\.(spec|int-spec)\\.ts$',
      },
      to: { path: '^apps/[^/]+/src/[^/]+/' },
    },
    {
      name: 'no-module-cycles',
      comment: 'No import cycles between modules (ESM initialisation order and decorators bite on cycles).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      comment: 'No cycles between folders: a feature and its use cases depend one way.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.test.json' },
    tsPreCompilationDeps: true,
    exclude: { path: '(^|/)(node_modules|dist|coverage)/' },
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json'] },
  },
};
