import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CONSOLE_SECURITY_HEADERS } from '../console/console-routes.setup.js';
import { PROBLEM_CONTENT_TYPE, problem } from '../edge/problem.js';
import { OPENAPI_INTERFACES, type OpenApiInterface, openApiFile } from '../openapi/openapi-files.js';
import {
  DOCS_ASSETS_PATH,
  DOCS_GRAPHQL_PATH,
  DOCS_PATH,
  DOCS_STYLESHEET,
  REFERENCE_SCRIPT,
  graphqlPage,
  indexPage,
  referencePage,
} from './docs-pages.js';
import { sdlToHtml } from './sdl-html.js';

/**
 * The reference pages' headers (docs/adr/0040-api-reference-page.md): the console's, with a policy that allows no
 * inline style at all (Swagger UI sets styles through the DOM, which CSP does not govern) and no form anywhere.
 */
export const DOCS_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  ...CONSOLE_SECURITY_HEADERS,
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
};

/** Swagger UI's installed files: the package is a dependency, so `npm start` and the image both have it. */
export function swaggerUiDist(): { dir: string; version: string } {
  const manifest = createRequire(import.meta.url).resolve('swagger-ui-dist/package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { dir: dirname(manifest), version };
}

/** The only Swagger UI files a page loads (the bundle holds React and every plugin; no preset is used). */
const SWAGGER_UI_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css'];

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const HTML = 'text/html; charset=utf-8';

interface Body {
  raw: Buffer;
  /** The bundle is 1.6 MB, 0.43 MB gzipped; compressed once, on first use, off the event loop. */
  gzip: Buffer;
}

/** Computed once, when first asked; a failure is not kept, so the next request tries again. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= make().catch((error: unknown) => {
      value = undefined;
      throw error;
    });
    return value;
  };
}

function compressed(load: () => Promise<Buffer | string>): () => Promise<Body> {
  return once(async () => {
    const raw = Buffer.from(await load());
    return { raw, gzip: await promisify(gzip)(raw) };
  });
}

export interface DocsSources {
  /** OPENAPI_DIR: the index names each document's title and version. */
  openApiDir: string;
  /** The schema as SDL (LazyApolloDriver.schemaSdl). */
  graphqlSdl: () => Promise<string>;
}

/**
 * Serves the API reference at /docs (index), /docs/v1 and /docs/v2 (Swagger UI over /v1/openapi.json and
 * /v2/openapi.json) and /docs/graphql (the SDL), without a key, under DOCS_SECURITY_HEADERS: what they show is
 * already public (/v1/openapi.json, /graphql/schema.graphql). Plain Fastify routes, like the console's. Nothing
 * is read at start: each page and file is built on first request and kept, compressed when the client accepts.
 */
export function configureDocsRoutes(app: NestFastifyApplication, sources: DocsSources): void {
  const fastify = app.getHttpAdapter().getInstance();
  const swaggerUi = swaggerUiDist();
  const swaggerBase = `${DOCS_ASSETS_PATH}/swagger-ui-dist@${swaggerUi.version}`;

  const summaries = once(() =>
    Promise.all(
      OPENAPI_INTERFACES.map(async (iface) => {
        const text = await readFile(openApiFile(sources.openApiDir, iface), 'utf8');
        const { info } = JSON.parse(text) as { info: { title: string; version: string } };
        return { iface, title: info.title, version: info.version };
      }),
    ),
  );
  const pages = new Map<string, () => Promise<Body>>([
    [DOCS_PATH, compressed(async () => indexPage(await summaries()))],
    [DOCS_GRAPHQL_PATH, compressed(async () => graphqlPage(sdlToHtml(await sources.graphqlSdl())))],
    ...OPENAPI_INTERFACES.map(
      (iface: OpenApiInterface) =>
        [
          `${DOCS_PATH}/${iface}`,
          compressed(() => Promise.resolve(referencePage(iface, { base: swaggerBase }))),
        ] as const,
    ),
  ]);
  const assets = new Map<string, { type: string; immutable: boolean; body: () => Promise<Body> }>([
    ['docs.css', { type: CSS, immutable: false, body: compressed(() => Promise.resolve(DOCS_STYLESHEET)) }],
    [
      'reference.js',
      { type: JS, immutable: false, body: compressed(() => Promise.resolve(REFERENCE_SCRIPT)) },
    ],
    ...SWAGGER_UI_FILES.map(
      (name) =>
        [
          `swagger-ui-dist@${swaggerUi.version}/${name}`,
          {
            type: name.endsWith('.js') ? JS : CSS,
            immutable: true,
            body: compressed(() => readFile(join(swaggerUi.dir, name))),
          },
        ] as const,
    ),
  ]);

  const send = async (request: FastifyRequest, reply: FastifyReply, type: string, body: Body) => {
    const gzipped = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    if (gzipped) void reply.header('content-encoding', 'gzip');
    return reply
      .header('vary', 'accept-encoding')
      .type(type)
      .send(gzipped ? body.gzip : body.raw);
  };

  for (const [path, body] of pages) {
    fastify.get(path, async (request, reply) => {
      void reply.headers(DOCS_SECURITY_HEADERS).header('cache-control', 'no-cache');
      return send(request, reply, HTML, await body());
    });
  }
  fastify.get(`${DOCS_PATH}/`, (_request, reply) => {
    void reply.redirect(DOCS_PATH, 302);
  });
  fastify.get(`${DOCS_ASSETS_PATH}/*`, async (request, reply) => {
    void reply.headers(DOCS_SECURITY_HEADERS);
    const asset = assets.get(request.url.split('?', 1)[0].slice(DOCS_ASSETS_PATH.length + 1));
    if (!asset) return reply.status(404).type(PROBLEM_CONTENT_TYPE).send(problem(404, 'no such asset'));
    void reply.header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    return send(request, reply, asset.type, await asset.body());
  });
}
