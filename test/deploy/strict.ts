import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import type { Finding, K8sObject } from './manifest-checks.js';
import { modelPackage } from './schemas.js';

/**
 * Fields the Kubernetes API does not know (a misspelt `readinesProbe` that the API server would drop or reject),
 * like kubeconform -strict. The compiled schemas of kubernetes-models do not forbid extra properties, but its type
 * declarations describe the same OpenAPI definitions exactly, so the TypeScript checker walks each object along the
 * declared type of its kind and reports every property the type lacks.
 */

const require = createRequire(import.meta.url);
const modelsDir = (group: string) => dirname(require.resolve(`${modelPackage(group)}/package.json`));

let checkerCache: { program: ts.Program; checker: ts.TypeChecker } | undefined;
const typeCache = new Map<string, ts.Type | null>();

function declarationFile(apiVersion: string, kind: string): string | undefined {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  if (!/^[a-z0-9.]*$/.test(group) || !/^v\d+\w*$/.test(version) || !/^[A-Z]\w+$/.test(kind)) return undefined;
  return join(modelsDir(group), group, version, `${kind}.d.ts`);
}

function typeOf(apiVersion: string, kind: string, files: string[]): ts.Type | undefined {
  const key = `${apiVersion} ${kind}`;
  if (!typeCache.has(key)) {
    const file = declarationFile(apiVersion, kind);
    const { program, checker } = checkerFor(files);
    const source = file ? program.getSourceFile(file) : undefined;
    const symbol = source ? checker.getSymbolAtLocation(source) : undefined;
    const exported = symbol
      ? checker.getExportsOfModule(symbol).find((s) => s.name === `I${kind}`)
      : undefined;
    typeCache.set(key, exported ? checker.getDeclaredTypeOfSymbol(exported) : null);
  }
  return typeCache.get(key) ?? undefined;
}

function checkerFor(files: string[]): { program: ts.Program; checker: ts.TypeChecker } {
  if (!checkerCache) {
    const program = ts.createProgram(files, {
      noEmit: true,
      skipLibCheck: true,
      types: [],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      // The declarations need only Array and the primitives: the smallest default library parses fastest.
      lib: ['lib.es5.d.ts'],
    });
    checkerCache = { program, checker: program.getTypeChecker() };
  }
  return checkerCache;
}

function walk(checker: ts.TypeChecker, value: unknown, type: ts.Type, path: string, out: string[]): void {
  if (value === null || typeof value !== 'object') return;
  const target = checker.getNonNullableType(type);
  const objectTypes = target.isUnion() ? target.types.filter((t) => t.flags & ts.TypeFlags.Object) : [target];
  if (objectTypes.length !== 1) return; // a primitive or an ambiguous union: nothing to say about its fields
  const declared = objectTypes[0];
  if (Array.isArray(value)) {
    const element = checker.getIndexTypeOfType(declared, ts.IndexKind.Number);
    if (element) value.forEach((item, index) => walk(checker, item, element, `${path}/${index}`, out));
    return;
  }
  const index = checker.getIndexTypeOfType(declared, ts.IndexKind.String);
  for (const [key, child] of Object.entries(value)) {
    const property = checker.getPropertyOfType(declared, key);
    if (property) walk(checker, child, checker.getTypeOfSymbol(property), `${path}/${key}`, out);
    else if (index) walk(checker, child, index, `${path}/${key}`, out);
    else out.push(`${path}/${key}`);
  }
}

export function unknownFields(objects: K8sObject[]): Finding[] {
  const files = [
    ...new Set(
      objects
        .map((o) => declarationFile(String(o.apiVersion), String(o.kind)))
        .filter((f): f is string => !!f),
    ),
  ];
  // A program over every kind seen so far: rebuilt (once) when a new kind shows up.
  if (checkerCache && files.some((file) => !checkerCache?.program.getSourceFile(file))) {
    const known = checkerCache.program.getRootFileNames();
    checkerCache = undefined;
    typeCache.clear();
    files.push(...known.filter((file) => !files.includes(file)));
  }
  const findings: Finding[] = [];
  for (const object of objects) {
    const type = typeOf(String(object.apiVersion), String(object.kind), files);
    if (!type) continue; // validateSchemas reports kinds without a schema
    const unknown: string[] = [];
    walk(checkerFor(files).checker, object, type, '', unknown);
    for (const path of unknown) {
      findings.push({
        check: 'schema',
        object: `${object.kind}/${object.metadata?.name}`,
        message: `${path} is not a field of ${object.apiVersion} ${object.kind}`,
      });
    }
  }
  return findings;
}
