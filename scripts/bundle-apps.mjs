// The last step of `npm run build`: each app's compiled entry (dist/apps/<app>/main.js, from tsc) is bundled with
// its libraries and dependencies into one file, dist/apps/<app>/server.bundle.mjs, started through
// dist/apps/<app>/server.mjs, which turns on Node's compile cache first (ADR 24). What else loads the apps' modules
// is bundled the same way, each beside its compiled entry (CLIS, scripts/lib/bundles.mjs): each app's migrations
// (dist/apps/<app>/migrate.mjs, run by the migration Job, `npm start`, every test template and every rebuild), the
// keys CLI and the replay tool. Unbundled, a migrate.js with nothing to apply took 2.4 s, a keys command 1.35 s.
//
// Why: about 80 % of an app's start was module loading (some 1,300 CommonJS files and 300 of our own ES modules,
// each resolved, stat'ed, read and compiled). One file removes the resolving and reading; the compile cache removes
// the compiling on every start after the first. Everything else about the app is the same code tsc emitted.
//
// What stays outside the bundle:
// - `pg`: TypeORM loads its driver with `require(name)` at run time, so the bundle must use that same copy (type
//   parsers and pools are per copy);
// - `reflect-metadata`: it must run before any decorated class is defined. Inside a bundle a CommonJS package runs
//   where its importer's body starts, after every ES module that importer depends on (esbuild hoists those), so
//   the libraries' classes would be decorated before `Reflect.metadata` exists and Nest would see no constructor
//   types. Kept outside, it is a real top-level import that Node evaluates before the bundle's body;
// - whatever a dependency asks for but is not installed (optional peers such as @nestjs/microservices or
//   pg-native): those imports sit behind a try/catch or a "package missing" message, so they stay imports and fail
//   at run time exactly as they do unbundled.
import { tokenizer } from 'acorn';
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLED_APPS, BUNDLES, CLIS, bundleFileOf, launcherOf } from './lib/bundles.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ALWAYS_EXTERNAL = ['pg', 'reflect-metadata'];

/** Leaves a bare import that nothing installed answers as an import (see the file comment). */
const missingStaysExternal = {
  name: 'missing-stays-external',
  setup(b) {
    const installed = new Map(); // package name → found in the root node_modules
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return undefined;
      const name = args.path.split('/', args.path.startsWith('@') ? 2 : 1).join('/');
      if (!installed.has(name)) {
        installed.set(name, existsSync(join(ROOT, 'node_modules', name, 'package.json')));
      }
      if (installed.get(name)) return undefined;
      try {
        // Not hoisted: a copy nested under its importer's own node_modules, if any.
        createRequire(args.importer || join(ROOT, 'package.json')).resolve(args.path);
        return undefined;
      } catch (error) {
        // Installed but not for require() (an `import`-only export): esbuild resolves those itself.
        return error.code === 'MODULE_NOT_FOUND' ? { path: args.path, external: true } : undefined;
      }
    });
  },
};

/**
 * @nestjs/typeorm reaches TypeORM's deprecated classes through `createRequire(import.meta.url)('typeorm')`, which a
 * bundle answers from node_modules: a second TypeORM, loaded the slow way. Given the bundled one instead.
 */
const nestTypeormCompat = {
  name: 'nest-typeorm-compat',
  setup(b) {
    b.onLoad({ filter: /@nestjs[\\/]typeorm[\\/]dist[\\/]common[\\/]typeorm-compat\.js$/ }, () => ({
      contents: [
        "import * as typeorm from 'typeorm';",
        "export const Connection = typeorm['Connection'];",
        "export const AbstractRepository = typeorm['AbstractRepository'];",
      ].join('\n'),
      loader: 'js',
    }));
  },
};

/**
 * One ES module view of each CommonJS package that many of the bundle's ES modules import. esbuild gives every ES
 * module that imports a CommonJS package its own `__toESM(require_x())`, which copies every export of the package
 * onto a new object while that module is evaluated: in the gateway `graphql` (some 350 exports) 119 times and
 * class-validator 42 times, about a tenth of its start (issue 13). Routed through one virtual module, the copy is
 * made once and every importer reads that module's bindings. The package is still the one bundled copy, which its
 * CommonJS importers (Nest's own code) require as before. The view's default export is `module.exports`, as Node
 * gives an ES module that imports a CommonJS package (and as esbuild's copies did for our ES modules).
 */
export const SHARED_ESM_VIEWS = ['graphql', 'class-validator', 'class-transformer', 'rxjs', 'iterare'];
export const sharedEsmViews = {
  name: 'shared-esm-views',
  setup(b) {
    const viewed = new Set(SHARED_ESM_VIEWS);
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      // `import` statements only: a require() gets module.exports without a copy, and the view's own imports
      // (namespace esm-view) resolve to the package itself.
      if (args.kind !== 'import-statement' || args.namespace === 'esm-view' || !viewed.has(args.path)) {
        return undefined;
      }
      return { path: args.path, namespace: 'esm-view' };
    });
    b.onLoad({ filter: /.*/, namespace: 'esm-view' }, (args) => ({
      contents: `export * from '${args.path}';\nexport default require('${args.path}');\n`,
      resolveDir: ROOT,
      loader: 'js',
    }));
  },
};

/**
 * An all-ASCII bundle. esbuild escapes non-ASCII characters in strings and untagged templates but not in regular
 * expression literals, and validator.js (class-validator's) spells its locales' alphabets out in them (ansis and
 * others have a few too): those few lines made the gateway's 7.9 MB bundle a two-byte string for Node and V8, a
 * UTF-8 decode of 80–120 ms and a compile-cache check of 85–100 ms at every start, against about 50 and 45 ms all
 * ASCII. A dependency's regular expression literals (found with acorn's tokenizer) are given to esbuild with each
 * such character written as `\uXXXX`, one per UTF-16 unit, which a regular expression reads as the same character
 * with or without the `u` flag; nothing else in the file changes. One that follows a backslash (an identity escape
 * such as `\é`, which the rewrite would turn into an escaped backslash) fails the build, and so does a bundle that
 * is still not all ASCII.
 */
const NON_ASCII = /[\u0080-\uffff]/;
const escapeNonAscii = (text) =>
  text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The [start, end) ranges of the regular expression literals of `source` that hold a non-ASCII character. */
function nonAsciiRegexes(source) {
  for (const sourceType of ['module', 'script']) {
    try {
      const ranges = [];
      for (const token of tokenizer(source, { ecmaVersion: 'latest', sourceType, allowHashBang: true })) {
        if (token.type.label === 'regexp' && NON_ASCII.test(source.slice(token.start, token.end))) {
          ranges.push([token.start, token.end]);
        }
      }
      return ranges;
    } catch {
      // Not tokenizable as this source type: try the other.
    }
  }
  return [];
}

export const asciiSources = {
  name: 'ascii-sources',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/].*\.(?:c|m)?js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!NON_ASCII.test(source)) return undefined;
      const ranges = nonAsciiRegexes(source);
      if (!ranges.length) return undefined;
      let contents = '';
      let at = 0;
      for (const [start, end] of ranges) {
        const literal = source.slice(start, end);
        if (/\\[\u0080-\uffff]/.test(literal)) {
          throw new Error(
            `${args.path}: a backslash before a non-ASCII character in ${literal.slice(0, 80)}`,
          );
        }
        contents += source.slice(at, start) + escapeNonAscii(literal);
        at = end;
      }
      return { contents: contents + source.slice(at), loader: 'js' };
    });
  },
};

/**
 * Fails the build when bundled code would load, at run time, a second copy of a package the bundle already holds
 * (an ES module's own `createRequire(import.meta.url)` calling it by name): two copies of class-validator or TypeORM
 * keep two registries of metadata and disagree.
 */
// Stateless, so a second copy costs only its loading: fdir (a globbing dependency) asks for it that way.
const STATELESS = new Set(['picomatch']);

function assertOneCopyEach(app, code, metafile) {
  const bundled = new Set(
    Object.keys(metafile.inputs)
      .map((file) => file.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1])
      .filter(Boolean),
  );
  const requires = [
    ...code.matchAll(/(\w+)\s*=\s*(?:\/\* @__PURE__ \*\/\s*)?createRequire\d*\(import\.meta\.url\)/g),
  ].map((m) => m[1]);
  const twice = new Set();
  for (const name of requires) {
    for (const call of code.matchAll(new RegExp(`\\b${name}(?:\\.resolve)?\\("([^"]+)"\\)`, 'g'))) {
      const pkg = call[1].split('/', call[1].startsWith('@') ? 2 : 1).join('/');
      if (bundled.has(pkg) && !STATELESS.has(pkg)) twice.add(pkg);
    }
  }
  if (twice.size) {
    throw new Error(`${app}: the bundle would load a second copy of ${[...twice].join(', ')} at run time`);
  }
}

// CommonJS code inside an ES module bundle still calls require() (dynamic loads) and reads __dirname.
const BANNER = [
  "import { createRequire as __bundleRequire } from 'node:module';",
  "import { dirname as __bundleDirname } from 'node:path';",
  "import { fileURLToPath as __bundleFileUrlToPath } from 'node:url';",
  'const require = __bundleRequire(import.meta.url);',
  'const __filename = __bundleFileUrlToPath(import.meta.url);',
  'const __dirname = __bundleDirname(__filename);',
].join('\n');

const launcher = (
  bundleFile,
) => `// Generated by scripts/bundle-apps.mjs: the compile cache first, then the bundle (ADR 24).
// A namespace import: a Node without enableCompileCache (before 22.1) starts without the cache, not a SyntaxError.
import * as nodeModule from 'node:module';
nodeModule.enableCompileCache?.();
await import('./${bundleFile}');
`;

// keepNames makes esbuild call its `__name` helper for every named function and class as its definition runs:
// nested function declarations too, so Fastify's reply and route code calls it several times per request (about
// 2 % of the gateway's CPU on GET /status, issue 13's edge profile). Most of those functions already carry the
// name; defining it again changes nothing, so the helper skips them. The replacement has the helper's exact
// length, so the source map stays true.
const NAME_HELPER = '__name=(target,value)=>__defProp(target,"name",{value,configurable:!0})';
const CHEAP_NAME_HELPER = '__name=(t,v)=>t.name==v?t:__defProp(t,"name",{value:v,configurable:!0})';

export function cheapKeepNames(app, code) {
  const at = code.indexOf(NAME_HELPER);
  if (at < 0 || code.indexOf(NAME_HELPER, at + 1) >= 0 || CHEAP_NAME_HELPER.length !== NAME_HELPER.length) {
    throw new Error(
      `${app}: esbuild's __name helper is not the one scripts/bundle-apps.mjs expects once (an esbuild upgrade?)`,
    );
  }
  return code.slice(0, at) + CHEAP_NAME_HELPER + code.slice(at + NAME_HELPER.length);
}

/** Bundles one of BUNDLES: `<name>.bundle.mjs` beside its entry, started by `<name>.mjs`. */
async function bundle(target) {
  const { entry } = target;
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    outfile: join(ROOT, bundleFileOf(target)),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Class names are part of the behaviour: Nest's injection tokens and TypeORM's entity metadata use them.
    keepNames: true,
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    sourcesContent: false,
    // License comments go to server.bundle.mjs.LEGAL.txt beside the bundle: kept, and out of the all-ASCII code.
    legalComments: 'external',
    external: ALWAYS_EXTERNAL,
    plugins: [sharedEsmViews, missingStaysExternal, nestTypeormCompat, asciiSources],
    metafile: true,
    banner: { js: BANNER },
    // The compiled libraries (node_modules/@app/* → libs/*/dist), not the TypeScript sources that
    // tsconfig.base.json's paths name: esbuild would compile those itself, without decorator metadata.
    tsconfigRaw: {},
    logLevel: 'error',
  });
  const file = join(ROOT, bundleFileOf(target));
  const code = cheapKeepNames(entry, await readFile(file, 'utf8'));
  assertOneCopyEach(entry, code, result.metafile);
  const nonAscii = NON_ASCII.exec(code);
  if (nonAscii) {
    const at = code.slice(Math.max(0, nonAscii.index - 60), nonAscii.index + 20);
    throw new Error(`${entry}: the bundle is not all ASCII (see asciiSources), near: ${at}`);
  }
  await writeFile(file, code);
  await writeFile(join(ROOT, launcherOf(target)), launcher(`${target.name}.bundle.mjs`));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  await Promise.all(BUNDLES.map(bundle));
  console.log(
    `bundled ${BUNDLED_APPS.length} apps into dist/apps/<app>/server.bundle.mjs, their migrations into ` +
      `dist/apps/<app>/migrate.bundle.mjs, and ${CLIS.slice(BUNDLED_APPS.length).map(launcherOf).join(', ')} ` +
      `in ${Date.now() - started} ms`,
  );
}
