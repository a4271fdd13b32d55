// The boundary lint (docs/architecture.md, "Boundaries"): dependency-cruiser with the rules of
// .dependency-cruiser.cjs, then one check its rules cannot state: no cycle between the feature folders of an app,
// each feature taken whole (apps/<app>/src/<feature>/ and everything below it), with the app's composition root
// (its app.module.ts, main.ts, migrate.ts and data-source.ts, which import every feature) counted as one more
// folder: a feature that imports the root, itself or through another feature, closes a loop through every
// feature the root imports. Run by `npm run lint` and by the lint step of `npm test`; exits 1 on any violation.
import { cruise, format } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
process.chdir(ROOT);

const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
const tsConfig = extractTSConfig('tsconfig.test.json');
const TEST_FILE = /\.(spec|int-spec|e2e-spec)\.ts$/;
const CYCLE_RULES = new Set(['no-module-cycles', 'no-folder-cycles']);
const rules = options.ruleSet.forbidden;

// Two cruises: the import rules over everything (a spec inside an app follows the app's rules, and nothing reaches
// into a library but through its index), the cycle rules over the code alone (a spec and the test support it
// imports, which imports the libraries back, are not a structure anyone depends on).
const everything = await cruise(
  ['apps', 'libs', 'tools', 'test'],
  { ...options, ruleSet: { forbidden: rules.filter((rule) => !CYCLE_RULES.has(rule.name)) } },
  undefined,
  { tsConfig },
);
const code = await cruise(
  ['apps', 'libs', 'tools'],
  {
    ...options,
    exclude: { path: [options.exclude.path, TEST_FILE.source] },
    ruleSet: { forbidden: rules.filter((rule) => CYCLE_RULES.has(rule.name)) },
  },
  undefined,
  { tsConfig },
);

let failed = false;
for (const result of [everything, code]) {
  if (result.output.summary.error === 0) continue;
  failed = true;
  console.error((await format(result.output, { outputType: 'err' })).output);
}

/**
 * apps/<app>/src/<feature>/… → '<app>/<feature>'; the composition root's files → '<app>/(root)'. The other files
 * directly in src/ belong to no feature: leaves (config, schema, clock) that import no feature (the
 * app-root-leaves-or-wiring rule), and root modules that features share (a persistence module).
 */
function featureOf(path) {
  const root = /^apps\/([^/]+)\/src\/(app\.module|main|migrate|data-source)\.ts$/.exec(path);
  if (root) return `${root[1]}/(root)`;
  const match = /^apps\/([^/]+)\/src\/([^/]+)\//.exec(path);
  return match ? `${match[1]}/${match[2]}` : null;
}

// The feature graph, each edge with one import that makes it (to say where to look).
const edges = new Map();
for (const module of code.output.modules) {
  const from = featureOf(module.source);
  if (!from) continue;
  for (const dependency of module.dependencies) {
    const to = featureOf(dependency.resolved);
    if (!to || to === from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    if (!edges.get(from).has(to)) edges.get(from).set(to, `${module.source} → ${dependency.resolved}`);
  }
}

// Tarjan's strongly connected components: every component of more than one feature is a cycle.
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const components = [];
let next = 0;
function connect(node) {
  index.set(node, next);
  low.set(node, next++);
  stack.push(node);
  onStack.add(node);
  for (const to of edges.get(node)?.keys() ?? []) {
    if (!index.has(to)) {
      connect(to);
      low.set(node, Math.min(low.get(node), low.get(to)));
    } else if (onStack.has(to)) {
      low.set(node, Math.min(low.get(node), index.get(to)));
    }
  }
  if (low.get(node) === index.get(node)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) components.push(component.sort());
  }
}
for (const node of edges.keys()) if (!index.has(node)) connect(node);

for (const component of components) {
  failed = true;
  console.error(`  error no-feature-cycles: ${component.join(' ↔ ')}`);
  for (const from of component) {
    for (const [to, example] of edges.get(from) ?? []) {
      if (component.includes(to)) console.error(`      ${from} → ${to} (e.g. ${example})`);
    }
  }
}
const { totalCruised, totalDependenciesCruised } = everything.output.summary;
console.log(
  `boundaries: ${failed ? 'violations found' : 'ok'} (${totalCruised} modules, ${totalDependenciesCruised} dependencies, ` +
    `${components.length} feature cycle(s))`,
);
process.exit(failed ? 1 : 0);
