import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { ROOT } from '../support/paths.js';

interface BundleScript {
  sharedEsmViews: Plugin;
  asciiSources: Plugin;
}

const { sharedEsmViews, asciiSources } = (await import(
  pathToFileURL(join(ROOT, 'scripts', 'bundle-apps.mjs')).href
)) as BundleScript;

// Inside the repository (in .local/, which git and the linters ignore), so that Node's module resolution finds
// node_modules from the bundles run here.
mkdirSync(join(ROOT, '.local'), { recursive: true });
const dir = mkdtempSync(join(ROOT, '.local', 'bundle-apps-spec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Bundles `modules` (path → ES module source; `entry.mjs` the entry) as the apps are bundled; the code. */
async function bundle(modules: Record<string, string>, plugins: Plugin[]): Promise<string> {
  for (const [name, source] of Object.entries(modules)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), source);
  }
  const result = await build({
    entryPoints: [join(dir, 'entry.mjs')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    plugins,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

/** Runs bundled code with Node; its stdout. */
function run(code: string): string {
  const file = join(dir, `out-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, code);
  return execFileSync(process.execPath, [file], { encoding: 'utf8' }).trim();
}

const copies = (code: string, pkg: string) =>
  code.match(new RegExp(`__toESM\\(require_${pkg}\\d*\\(\\)`, 'g'))?.length ?? 0;

describe('scripts/bundle-apps.mjs: one ES module view of a CommonJS package', () => {
  // Three ES modules import graphql (CommonJS): by name, by default and as a namespace.
  const modules = {
    'entry.mjs': [
      "import './named.mjs';",
      "import './namespace.mjs';",
      "import byDefault from 'graphql';",
      "import { GraphQLError } from 'graphql';",
      "import { report } from './named.mjs';",
      "import { ns } from './namespace.mjs';",
      'console.log(JSON.stringify({',
      "  named: typeof GraphQLError === 'function' && GraphQLError === report(),",
      '  byDefault: byDefault.GraphQLError === GraphQLError && byDefault.__esModule === true,',
      '  namespace: ns.GraphQLError === GraphQLError && ns.default.GraphQLError === GraphQLError,',
      "  printed: typeof ns.print === 'function',",
      '}));',
    ].join('\n'),
    'named.mjs': "import { GraphQLError } from 'graphql';\nexport const report = () => GraphQLError;\n",
    'namespace.mjs': "import * as ns from 'graphql';\nexport { ns };\n",
  };

  it('copies the package once, however many modules import it', async () => {
    const without = await bundle(modules, []);
    const withViews = await bundle(modules, [sharedEsmViews]);
    expect(copies(without, 'graphql')).toBeGreaterThanOrEqual(3); // one per importing module at least
    expect(copies(withViews, 'graphql')).toBe(1);
  });

  it('gives every import form what it had without the view: named, default (module.exports), namespace', async () => {
    const expected = { named: true, byDefault: true, namespace: true, printed: true };
    expect(JSON.parse(run(await bundle(modules, [])))).toEqual(expected);
    expect(JSON.parse(run(await bundle(modules, [sharedEsmViews])))).toEqual(expected);
  });
});

describe('scripts/bundle-apps.mjs: an all-ASCII bundle', () => {
  // A dependency (validator.js does this) with non-ASCII characters in regular expressions, with and without the
  // u flag (an astral character in one), and in a string, a comment and a tagged template's raw text, which esbuild
  // keeps and escapes itself and which must stay exactly as written.
  const modules = {
    'node_modules/alphabets/index.js': [
      '// Ä comment',
      'export const de = /^[A-ZÄÖÜß]+$/i;',
      'export const ja = /^[ぁ-ん]+$/;',
      'export const emoji = /^[😀-😏]$/u;',
      "export const word = 'Grüße';",
      'export const raw = String.raw`Grüße ${1 / 2}`;',
    ].join('\n'),
    'entry.mjs': [
      "import { de, ja, emoji, word, raw } from './node_modules/alphabets/index.js';",
      'console.log(JSON.stringify([',
      "  de.test('GRÜSSE'), de.test('grüße'), de.test('Œ'), ja.test('ひらがな'), ja.test('カ'),",
      "  emoji.test('😃'), emoji.test('😐'), word, raw,",
      ']));',
    ].join('\n'),
  };
  const expected = [true, true, false, true, false, true, false, 'Grüße', 'Grüße 0.5'];

  it('escapes what esbuild leaves raw in regular expressions, which match exactly what they matched', async () => {
    const raw = await bundle(modules, []);
    const ascii = await bundle(modules, [asciiSources]);
    const nonAscii = (code: string) => code.match(/[\u0080-\uffff]+/g) ?? [];
    expect(nonAscii(raw).length).toBeGreaterThan(1);
    // What is left is the template's raw text, which no escape may change (a real dependency's would fail the build).
    expect(nonAscii(ascii)).toEqual(['üß']);
    expect(JSON.parse(run(raw))).toEqual(expected);
    expect(JSON.parse(run(ascii))).toEqual(expected);
  });

  it('refuses a backslash before a non-ASCII character rather than change what it means', async () => {
    const escaped = {
      ...modules,
      'node_modules/alphabets/index.js': [
        'export const de = /^\\Ä$/;',
        "export const ja = /x/, emoji = /x/, word = '', raw = '';",
      ].join('\n'),
    };
    await expect(bundle(escaped, [asciiSources])).rejects.toThrow(/a backslash before a non-ASCII character/);
  });
});
