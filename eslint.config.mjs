// ESLint flat config: `npm run lint` (eslint --max-warnings 0 .), also run by `npm test`.
//
// TypeScript gets typescript-eslint's type-checked recommended rules, with type information from
// tsconfig.test.json (the one project that includes apps, libs, tests and specs alike), plus the rules that
// catch what bites a message-driven service: promises nobody awaits, async callbacks where sync ones are expected,
// and switches over unions that forget a member. The plain JavaScript scripts (scripts/, *.config.mjs) get
// ESLint's recommended rules without type information.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

const unusedVars = {
  args: 'after-used',
  argsIgnorePattern: '^_',
  varsIgnorePattern: '^_',
  caughtErrors: 'all',
  caughtErrorsIgnorePattern: '^_',
  destructuredArrayIgnorePattern: '^_',
  ignoreRestSiblings: true,
};

/** The globals of Node's ESM scripts (the `globals` package is not a dependency). */
const nodeGlobals = Object.fromEntries(
  [
    'AbortController',
    'AbortSignal',
    'Buffer',
    'URL',
    'URLSearchParams',
    'TextDecoder',
    'TextEncoder',
    'clearImmediate',
    'clearInterval',
    'clearTimeout',
    'console',
    'fetch',
    'performance',
    'process',
    'queueMicrotask',
    'setImmediate',
    'setInterval',
    'setTimeout',
    'structuredClone',
  ].map((name) => [name, 'readonly']),
);

/**
 * Reading the clock, as ESLint selectors: Date.now(), new Date() without arguments; in a handler file only inside
 * a method decorated @CommandHandler (a query handler reads, and may date its answer).
 */
const WALL_CLOCK_EXPRESSIONS = [
  ['Date.now()', "CallExpression[callee.object.name='Date'][callee.property.name='now']"],
  ['new Date()', "NewExpression[callee.name='Date'][arguments.length=0]"],
  ['performance.now()', "CallExpression[callee.object.name='performance'][callee.property.name='now']"],
];
const COMMAND_HANDLER = "MethodDefinition:has(Decorator[expression.callee.name='CommandHandler'])";
const WALL_CLOCK = WALL_CLOCK_EXPRESSIONS.flatMap(([what, selector]) => [
  [what, `${COMMAND_HANDLER} ${selector}`],
  [what, `:matches(Program:has(ClassDeclaration[id.name=/Repository$/])) ${selector}`],
]);

/**
 * The files allowed over 300 lines (max-lines), each with its reason. Any other file that grows past 300 is split.
 */
const LONG_FILES = [
  // Medium tests of one class over one database: its cases share the database and its fixtures.
  'libs/database/src/entity-statements.int-spec.ts', // EntityStatements' statements, one entity table
  'libs/messaging/src/message-processor.int-spec.ts', // MessageProcessor's batches, retries and refusals
  // End-to-end and fault files: the apps are started once (beforeAll) for all the cases of a file, and a second
  // file would start them again (each start is seconds of the test run, docs/adr/0032-ci-duration.md).
  'test/e2e/auth-matrix.e2e-spec.ts', // one system, one matrix of route families x keys
  'test/e2e/clusters.e2e-spec.ts', // one system
  'test/e2e/console.e2e-spec.ts', // one system and one browser
  'test/e2e/endpoints.e2e-spec.ts', // one system
  'test/e2e/jobs.e2e-spec.ts', // one system
  'test/e2e/lb-endpoints.e2e-spec.ts', // one system
  'test/e2e/mcp-server.e2e-spec.ts', // one system and one MCP server, every one of its tools
  'test/e2e/pods-v2.e2e-spec.ts', // one system
  'test/e2e/pods.e2e-spec.ts', // one system
  'test/e2e/rate-limit.e2e-spec.ts', // one system of three gateways
  'test/e2e/replay.e2e-spec.ts', // one system and one recorded history
  'test/e2e/secrets-at-rest.e2e-spec.ts', // one system
  'test/faults/app-kills.fault-spec.ts', // one replicated system under load, one scenario
  'test/faults/fuzz.fault-spec.ts', // one replicated system fuzzed route by route
  // Tables of cases.
  'test/faults/fuzz/cases.ts', // one table of fuzz cases
  // Exhaustive tables: every command subject in one place, so the compiler finds the one left out.
  'libs/contracts/src/messaging/contract-map.ts', // every command's and event's payload and result
  'libs/contracts/src/messaging/subjects.ts', // every subject of every domain, and the owner of each
  'libs/contracts/src/messaging/audit-rules.ts', // every command's audit rule, or why it has none
  'apps/endpoint-autoscaler/src/scaling/scaling-plan.spec.ts', // cases of one pure function over shared fixtures
  'apps/pod-lifecycle/src/runtime/kubernetes/kubernetes.driver.spec.ts', // cases against one fake Kubernetes API
];

/** The rules of every type-checked TypeScript file. */
const TYPED_RULES = {
  '@typescript-eslint/no-floating-promises': 'error',
  '@typescript-eslint/no-misused-promises': 'error',
  '@typescript-eslint/await-thenable': 'error',
  '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
  'no-unused-vars': 'off',
  '@typescript-eslint/no-unused-vars': ['error', unusedVars],
};

export default defineConfig(
  globalIgnores(['**/dist/', '**/node_modules/', '**/coverage/', '.local/', 'bench/results/']),
  {
    files: ['**/*.ts'],
    ignores: ['apps/console/**'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.test.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: TYPED_RULES,
  },
  {
    // The web console (a browser app: DOM and JSX) is type-checked with its own tsconfig. It shares the contracts'
    // types only: a value import would bundle class-validator and Node's crypto into the page.
    files: ['apps/console/**/*.{ts,tsx}'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        project: ['./apps/console/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      ...TYPED_RULES,
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@app/contracts',
              allowTypeImports: true,
              message: 'the console imports only types from @app/contracts (import type)',
            },
          ],
        },
      ],
    },
  },
  {
    // A command's effect may depend only on what was recorded (the envelope's time is `ctx.now`), or a replay and
    // a rebuild would decide differently (docs/adr/0011-replay-and-rebuild.md): no wall clock in command handlers
    // nor in repositories, which take the time they write as a parameter.
    files: ['apps/**/*.handler.ts', 'apps/**/*.repository.ts'],
    ignores: ['**/*.spec.ts', '**/*.int-spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...WALL_CLOCK.map(([what, selector]) => ({
          selector,
          message: `${what} reads the wall clock: take the time from the command (ctx.now) or as a parameter`,
        })),
      ],
    },
  },
  {
    // Everywhere: `==` only against null (it also matches undefined), braces on any body that spans lines.
    files: ['**/*.{ts,tsx,js,mjs,cjs}'],
    rules: {
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      curly: ['error', 'multi-line'],
      'max-lines': ['error', { max: 300 }],
    },
  },
  {
    files: LONG_FILES,
    rules: { 'max-lines': 'off' },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    extends: [js.configs.recommended],
    languageOptions: {
      ecmaVersion: 'latest',
      sourceType: 'module',
      globals: nodeGlobals,
    },
    rules: {
      'no-unused-vars': ['error', unusedVars],
    },
  },
);
