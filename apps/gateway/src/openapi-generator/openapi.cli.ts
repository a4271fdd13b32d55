import 'reflect-metadata';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPENAPI_INTERFACES, openApiFile } from '../openapi/openapi-files.js';
import { generateOpenApiDocuments, serializeOpenApiDocument } from './openapi.document.js';

/**
 * `npm run openapi` (after `npm run build`): regenerates apps/gateway/openapi/openapi.{v1,v2}.json from the code.
 * `--check` writes nothing and exits 1 naming the files that differ. Needs no database and no NATS.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const DIR = resolve(ROOT, 'apps/gateway/openapi');
const check = process.argv.includes('--check');

const documents = await generateOpenApiDocuments(ROOT);
const stale: string[] = [];
for (const iface of OPENAPI_INTERFACES) {
  const file = openApiFile(DIR, iface);
  const text = await serializeOpenApiDocument(documents[iface], file);
  let current: string | undefined;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  const name = relative(ROOT, file);
  const operations = Object.values(documents[iface].paths).flatMap((item) => Object.keys(item)).length;
  if (current === text) {
    process.stdout.write(`${name}: up to date (${operations} operations)\n`);
  } else if (check) {
    stale.push(name);
  } else {
    mkdirSync(DIR, { recursive: true });
    writeFileSync(file, text);
    process.stdout.write(`${name}: written (${operations} operations)\n`);
  }
}
if (stale.length) {
  process.stderr.write(`out of date: ${stale.join(', ')}; run \`npm run build && npm run openapi\`\n`);
  process.exit(1);
}
