import { randomBytes } from 'node:crypto';
import type { JsonSchema, OpenApiDoc, OpenApiOperation } from '../../support/openapi.js';

/**
 * Hostile requests generated from the committed OpenAPI descriptions, for every operation: missing and broken
 * keys, another user's ids, hostile path ids, invalid query values, bodies that break one documented constraint
 * each (wrong types, huge values, unicode and control characters, missing and extra properties), malformed JSON,
 * deep nesting, oversized bodies and unsupported content types. Every case is one the description says must be
 * refused: a body mutation is kept only when the documented schema rejects it.
 */

export type KeyChoice = 'A' | 'B' | 'none' | 'malformed' | 'unknown';

export type Family =
  | 'auth'
  | 'other-user'
  | 'foreign-ref'
  | 'path'
  | 'query'
  | 'body'
  | 'nul'
  | 'json'
  | 'nesting'
  | 'oversize'
  | 'content-type';

/** The statuses a family of cases may be answered with (each also has to be documented for the operation). */
export const EXPECTED_STATUSES: Record<Family, readonly number[]> = {
  auth: [401],
  'other-user': [403, 404],
  'foreign-ref': [400, 403, 404, 422],
  path: [400, 404, 414],
  query: [422],
  body: [400, 422],
  nul: [400],
  json: [400],
  nesting: [400, 404, 422],
  oversize: [413],
  'content-type': [415],
};

export interface FuzzCase {
  family: Family;
  /** `POST /v1/pods`: the documented operation. */
  operation: string;
  /** What was broken, for the report. */
  what: string;
  method: string;
  /** Path and query as sent (percent-encoded). */
  path: string;
  key: KeyChoice;
  contentType?: string;
  body?: Buffer;
  declaredLength?: number;
}

/** What the generator needs of the running system. */
export interface FuzzTargets {
  /** The id of one of user A's resources for a path parameter of `path`. */
  idFor(path: string, param: string): string;
  /** A valid body for each request body schema (by component name): the base every mutation starts from. */
  baseBodies: Record<string, unknown>;
  /** Bodies user B sends that name user A's resources (another user's ids), by operation (`POST /v1/pods`). */
  crossUserBodies: Record<string, unknown[]>;
}

/** Validates a value against a schema of the document; returns the errors (none: valid). */
export type Validate = (schema: JsonSchema, value: unknown) => string[];

const HOSTILE_IDS: readonly [string, string][] = [
  ['unknown id', `fuzz-${randomBytes(6).toString('hex')}`],
  ['emoji', '😀🔥'],
  ['non-latin', 'ünï-中文-кириллица'],
  ['bidi override', 'abc\u202edef'],
  ['NUL', 'a\u0000b'],
  ['control characters', '\u0001\u0007\u001b[31m'],
  ['sql', "' OR '1'='1' --"],
  ['dot segments', '../../etc/passwd'],
  ['4000 characters', 'a'.repeat(4000)],
  ['space', ' '],
  ['template', '{id}'],
  ['null', 'null'],
  ['negative number', '-1'],
  ['html', '<script>alert(1)</script>'],
];

const INVALID_INTEGERS: readonly string[] = [
  'abc',
  '1.5',
  '99999999999999999999999',
  '1e3',
  '０',
  'NaN',
  '-',
  '0x10',
];

/** Path parameters that name something the request itself creates (a worker, a job it reports): not fuzzed. */
function fuzzable(path: string, param: string): boolean {
  if (param === 'workerId') return false;
  if (param === 'jobId' && /\/job-(done|stream)\//.test(path)) return false;
  return true;
}

/** The deployment operators' routes (`@Auth({operator: true})`): every other key is refused before anything else. */
function operatorsOnly(method: string, path: string): boolean {
  if (/^\/v2\/(users|quotas|fleet)(\/|$)/.test(path)) return true;
  return /^\/v2\/teams\/\{teamId\}\/quota$/.test(path) && method !== 'GET';
}

function fill(path: string, values: (param: string) => string): string {
  return path.replace(/\{([^}]+)\}/g, (_, param: string) => encodeURIComponent(values(param)));
}

function json(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

/** The JSON request body schema of an operation, resolved when it is a `$ref`. */
function bodySchema(
  document: OpenApiDoc,
  operation: OpenApiOperation,
): { name?: string; schema: JsonSchema } | null {
  const schema = operation.requestBody?.content['application/json']?.schema;
  if (!schema) return null;
  const ref = schema.$ref as string | undefined;
  if (!ref) return { schema };
  const name = ref.replace('#/components/schemas/', '');
  return { name, schema: document.components.schemas[name] };
}

function resolve(document: OpenApiDoc, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (;;) {
    if (typeof current.$ref === 'string') {
      current = document.components.schemas[current.$ref.replace('#/components/schemas/', '')];
    } else if (Array.isArray(current.anyOf)) {
      // `{anyOf: [X, {type: null}]}` (an optional property): X.
      const [first] = (current.anyOf as JsonSchema[]).filter((s) => s.type !== 'null');
      if (!first) return current;
      current = first;
    } else {
      return current;
    }
  }
}

function typesOf(schema: JsonSchema): string[] {
  const type = schema.type;
  return Array.isArray(type) ? (type as string[]) : typeof type === 'string' ? [type] : [];
}

function deep(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? '['.repeat(depth) + ']'.repeat(depth)
    : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** Values of a property that break its schema (kept only if the document's schema rejects them). */
function badValues(schema: JsonSchema): [string, unknown][] {
  const types = typesOf(schema);
  const out: [string, unknown][] = [];
  const wrong: [string, unknown][] = [
    ['a number', 12345],
    ['a fraction', 1.5],
    ['a string', 'fuzz'],
    ['a numeric string', '12'],
    ['a boolean', true],
    ['null', null],
    ['an object', { fuzz: 1 }],
    ['an array', ['fuzz']],
    ['a deep array', JSON.parse(deep(500, 'array')) as unknown],
  ];
  out.push(...wrong.map(([what, value]): [string, unknown] => [`wrong type: ${what}`, value]));
  if (types.includes('string')) {
    const max = schema.maxLength as number | undefined;
    const min = schema.minLength as number | undefined;
    if (max !== undefined) {
      out.push([`${max + 1} characters (maxLength ${max})`, 'x'.repeat(max + 1)]);
      out.push([`${max + 1} emoji (maxLength ${max})`, '😀'.repeat(max + 1)]);
    } else {
      out.push(['64 KB of text', 'x'.repeat(64 * 1024)]);
    }
    if (min !== undefined && min > 0) out.push([`empty (minLength ${min})`, '']);
    if (schema.pattern !== undefined || schema.enum !== undefined) {
      for (const [what, value] of [
        ['NUL', '\u0000'],
        ['control characters', '\u0001\u001b[2J'],
        ['emoji', '😀'],
        ['bidi override', '\u202e80/tcp'],
        ['spaces', '   '],
        ['lower case', String((schema.enum as string[] | undefined)?.[0] ?? 'x').toLowerCase()],
        ['not in the enum', 'NOT_A_VALUE'],
      ] as const) {
        out.push([`${what} (pattern or enum)`, value]);
      }
    }
  }
  if (types.includes('integer') || types.includes('number')) {
    const max = schema.maximum as number | undefined;
    const min = schema.minimum as number | undefined;
    if (max !== undefined) out.push([`maximum + 1 (${max + 1})`, max + 1]);
    if (min !== undefined) out.push([`minimum - 1 (${min - 1})`, min - 1]);
    out.push(['1e308', 1e308], ['-1e308', -1e308], ['2^53 + 1', 2 ** 53 + 1], ['-0.5', -0.5]);
  }
  if (types.includes('array')) {
    const max = schema.maxItems as number | undefined;
    const items = (schema.items ?? {}) as JsonSchema;
    const sample = typesOf(items).includes('string') ? 'fuzz' : {};
    if (max !== undefined) {
      out.push([`${max + 1} items (maxItems ${max})`, Array.from({ length: max + 1 }, () => sample)]);
    }
    out.push(['10000 items', Array.from({ length: 10_000 }, () => sample)]);
    out.push(['items of the wrong type', [12345, null, true]]);
  }
  if (types.includes('object') && !schema.properties) {
    out.push(['a key that is no name', { '1 bad=key': 'x' }]);
    out.push(['a non-string value', { FUZZ: 12345 }]);
    out.push(['a NUL key', { '\u0000': 'x' }]);
    out.push(['5000 entries', Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`K${i}`, 'v']))]);
  }
  return out;
}

interface Mutation {
  what: string;
  body: unknown;
}

/** Mutations of `base` that each break one thing of `schema`, recursing into nested objects (3 levels). */
function mutations(
  document: OpenApiDoc,
  schema: JsonSchema,
  base: unknown,
  at: string,
  level = 0,
): Mutation[] {
  const resolved = resolve(document, schema);
  const out: Mutation[] = [];
  const properties = (resolved.properties ?? {}) as Record<string, JsonSchema>;
  if (!base || typeof base !== 'object' || Array.isArray(base) || level > 3) return out;
  const object = base as Record<string, unknown>;
  for (const required of (resolved.required ?? []) as string[]) {
    const { [required]: _dropped, ...rest } = object;
    out.push({ what: `${at}${required} missing`, body: rest });
  }
  out.push({ what: `${at}: an unknown property`, body: { ...object, fuzzExtra: 1 } });
  out.push({ what: `${at}: an unknown unicode property`, body: { ...object, 'ключ🙂\u202e': 'x' } });
  for (const [name, property] of Object.entries(properties)) {
    const target = resolve(document, property);
    for (const [what, value] of badValues(target)) {
      out.push({ what: `${at}${name}: ${what}`, body: { ...object, [name]: value } });
    }
    const present = object[name];
    if (target.properties && present && typeof present === 'object') {
      for (const nested of mutations(document, target, present, `${at}${name}.`, level + 1)) {
        out.push({ what: nested.what, body: { ...object, [name]: nested.body } });
      }
    }
    if (typesOf(target).includes('array') && Array.isArray(present) && present.length) {
      const items = resolve(document, (target.items ?? {}) as JsonSchema);
      if (items.properties) {
        for (const nested of mutations(document, items, present[0], `${at}${name}[0].`, level + 1)) {
          out.push({ what: nested.what, body: { ...object, [name]: [nested.body] } });
        }
      }
    }
  }
  return out;
}

/** Every case for every operation of the document. */
export function generateCases(
  document: OpenApiDoc,
  targets: FuzzTargets,
  validate: Validate,
): {
  cases: FuzzCase[];
  /** Body mutations dropped because the document's schema accepts them. */
  skippedValid: number;
} {
  const cases: FuzzCase[] = [];
  let skippedValid = 0;
  for (const [docPath, item] of Object.entries(document.paths)) {
    for (const [lower, operation] of Object.entries(item)) {
      const method = lower.toUpperCase();
      const name = `${method} ${docPath}`;
      const realPath = fill(docPath, (param) => targets.idFor(docPath, param));
      const body = bodySchema(document, operation);
      const base = body ? baseBody(targets, body.name, name) : undefined;
      if (body && base !== undefined) {
        const errors = validate(body.schema, base);
        if (errors.length) throw new Error(`the base body of ${name} is not valid: ${errors.join('; ')}`);
      }
      const baseBuffer = base === undefined ? undefined : json(base);
      const jsonType = baseBuffer ? 'application/json' : undefined;
      const add = (c: Omit<FuzzCase, 'operation' | 'method'>) =>
        cases.push({ operation: name, method, ...c });
      const responses = new Set(Object.keys(operation.responses));

      // Keys: none, malformed, unknown.
      for (const key of ['none', 'malformed', 'unknown'] as const) {
        add({
          family: 'auth',
          what: `${key} key`,
          path: realPath,
          key,
          contentType: jsonType,
          body: baseBuffer,
        });
      }
      // A route of a feature not offered here documents only its 501: it reads nothing past the key.
      if (!Object.keys(operation.responses).some((status) => /^2\d\d$/.test(status))) continue;
      // The operators' routes refuse every other key (403) before they read anything else: the fuzz users'
      // keys are no operator's, so only the key cases tell something (the role matrix covers the 403).
      if (operatorsOnly(method, docPath)) continue;

      // Another user's resources: B with A's ids, and B's bodies naming A's resources.
      if (/\{/.test(docPath)) {
        add({
          family: 'other-user',
          what: "B on A's ids",
          path: realPath,
          key: 'B',
          contentType: jsonType,
          body: baseBuffer,
        });
      }
      for (const crossBody of targets.crossUserBodies[name] ?? []) {
        add({
          family: 'foreign-ref',
          what: `B names A's resources: ${JSON.stringify(crossBody).slice(0, 120)}`,
          path: realPath,
          key: 'B',
          contentType: 'application/json',
          body: json(crossBody),
        });
      }

      // Hostile path ids (user A's key, the other ids real).
      for (const param of [...docPath.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])) {
        if (!fuzzable(docPath, param)) continue;
        for (const [what, value] of HOSTILE_IDS) {
          const path = fill(docPath, (p) => (p === param ? value : targets.idFor(docPath, p)));
          add({
            family: 'path',
            what: `${param}: ${what}`,
            path,
            key: 'A',
            contentType: jsonType,
            body: baseBuffer,
          });
        }
        // Not percent-encoded on purpose: the router itself must answer.
        add({
          family: 'path',
          what: `${param}: malformed percent-encoding`,
          path: docPath.replace(/\{([^}]+)\}/g, (_, p: string) =>
            p === param ? '%zz' : encodeURIComponent(targets.idFor(docPath, p)),
          ),
          key: 'A',
          contentType: jsonType,
          body: baseBuffer,
        });
      }

      // Invalid integer query parameters.
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'query' || parameter.schema.type !== 'integer') continue;
        const { minimum, maximum } = parameter.schema as { minimum?: number; maximum?: number };
        const values = [...INVALID_INTEGERS];
        if (minimum !== undefined) values.push(String(minimum - 1));
        if (maximum !== undefined) values.push(String(maximum + 1));
        for (const value of values) {
          add({
            family: 'query',
            what: `${parameter.name}=${value}`,
            path: `${realPath}?${parameter.name}=${encodeURIComponent(value)}`,
            key: 'A',
            contentType: jsonType,
            body: baseBuffer,
          });
        }
        add({
          family: 'query',
          what: `${parameter.name} given twice`,
          path: `${realPath}?${parameter.name}=${minimum ?? 1}&${parameter.name}=${minimum ?? 1}`,
          key: 'A',
          contentType: jsonType,
          body: baseBuffer,
        });
      }

      if (!body || !baseBuffer) continue;

      // Bodies breaking one documented constraint each.
      const rootTypes: [string, unknown][] = [
        ['an array', []],
        ['a string', 'fuzz'],
        ['a number', 12345],
        ['true', true],
      ];
      const bodyMutations: Mutation[] = [
        ...rootTypes.map(([what, value]) => ({ what: `body: ${what}`, body: value })),
        ...(body.name ? mutations(document, body.schema, base, 'body.') : []),
      ];
      for (const mutation of bodyMutations) {
        if (validate(body.schema, mutation.body).length === 0) {
          skippedValid += 1;
          continue;
        }
        add({
          family: 'body',
          what: mutation.what,
          path: realPath,
          key: 'A',
          contentType: 'application/json',
          body: json(mutation.body),
        });
      }

      // Invalid UTF-8 is read as U+FFFD: an unknown property where the schema has none to spare.
      if (validate(body.schema, { '\ufffd\ufffd': 1 }).length) {
        add({
          family: 'body',
          what: 'a key of invalid UTF-8',
          path: realPath,
          key: 'A',
          contentType: 'application/json',
          body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
        });
      }

      // NUL in a string the schema takes (Postgres cannot store it): refused at the edge.
      if (base && typeof base === 'object' && !Array.isArray(base)) {
        for (const [field, value] of Object.entries(base as Record<string, unknown>)) {
          if (typeof value !== 'string') continue;
          add({
            family: 'nul',
            what: `body.${field}: a NUL character`,
            path: realPath,
            key: 'A',
            contentType: 'application/json',
            body: json({ ...(base as Record<string, unknown>), [field]: `${value}\u0000` }),
          });
        }
      }

      // Malformed JSON and prototype poisoning.
      const baseText = baseBuffer.toString('utf8');
      const poisoned = (key: string) => `{${JSON.stringify(key)}:{"fuzzPolluted":true},${baseText.slice(1)}`;
      for (const [what, raw] of [
        ['truncated', Buffer.from(baseText.slice(0, -1))],
        ['trailing comma', Buffer.from(`${baseText.slice(0, -1)},}`)],
        ['single quotes', Buffer.from("{'input': 1}")],
        ['__proto__', Buffer.from(poisoned('__proto__'))],
        [
          'constructor.prototype',
          Buffer.from(`{"constructor":{"prototype":{"fuzzPolluted":true}},${baseText.slice(1)}`),
        ],
      ] as const) {
        add({
          family: 'json',
          what: `malformed JSON: ${what}`,
          path: realPath,
          key: 'A',
          contentType: 'application/json',
          body: raw,
        });
      }

      // Deep nesting: the whole body, an unknown property, and (where the schema takes any value) a documented
      // property of a request for an unknown endpoint.
      const anyProperty = Object.entries(
        (resolve(document, body.schema).properties ?? {}) as Record<string, JsonSchema>,
      ).find(([, schema]) => Object.keys(schema).every((k) => k === 'description'))?.[0];
      for (const depth of [2_000, 100_000]) {
        add({
          family: 'nesting',
          what: `body: arrays nested ${depth} deep`,
          path: realPath,
          key: 'A',
          contentType: 'application/json',
          body: Buffer.from(deep(depth, 'array')),
        });
        if (validate(body.schema, { fuzzNested: { a: 1 } }).length) {
          add({
            family: 'nesting',
            what: `body.fuzzNested: objects nested ${depth} deep`,
            path: realPath,
            key: 'A',
            contentType: 'application/json',
            body: Buffer.from(`{"fuzzNested":${deep(depth, 'object')}}`),
          });
        }
        if (anyProperty && /\{endpointId\}/.test(docPath)) {
          const { [anyProperty]: _replaced, ...rest } = base as Record<string, unknown>;
          const restText = JSON.stringify(rest).slice(1);
          add({
            family: 'nesting',
            what: `body.${anyProperty}: objects nested ${depth} deep, unknown endpoint`,
            path: fill(docPath, (p) =>
              p === 'endpointId' ? `fuzz-missing-${depth}` : targets.idFor(docPath, p),
            ),
            key: 'A',
            contentType: 'application/json',
            body: Buffer.from(
              `{${JSON.stringify(anyProperty)}:${deep(depth, 'object')}${restText === '}' ? '}' : `,${restText}`}`,
            ),
          });
        }
      }

      // Oversized bodies: refused from the Content-Length alone.
      const limit = (operation.requestBody as { 'x-max-bytes'?: number })['x-max-bytes'];
      if (limit !== undefined) {
        add({
          family: 'oversize',
          what: `${limit + 1} bytes (limit ${limit})`,
          path: realPath,
          key: 'A',
          contentType: 'application/json',
          body: Buffer.concat([Buffer.from('{"fuzz":"'), Buffer.alloc(64 * 1024, 0x61)]),
          declaredLength: limit + 1,
        });
      }

      // A content type no route takes.
      if (responses.has('415')) {
        add({
          family: 'content-type',
          what: 'application/xml',
          path: realPath,
          key: 'A',
          contentType: 'application/xml',
          body: Buffer.from('<fuzz/>'),
        });
      }
    }
  }
  return { cases, skippedValid };
}

function baseBody(targets: FuzzTargets, name: string | undefined, operation: string): unknown {
  if (!name) return {};
  if (!(name in targets.baseBodies)) {
    throw new Error(`no valid base body for ${name} (${operation}): add one to the fuzz test's baseBodies`);
  }
  return targets.baseBodies[name];
}
