import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DOCS_SECURITY_HEADERS, configureDocsRoutes, swaggerUiDist } from './docs-routes.setup.js';

function appOn(fastify: FastifyInstance): NestFastifyApplication {
  return { getHttpAdapter: () => ({ getInstance: () => fastify }) } as unknown as NestFastifyApplication;
}

function openApiDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'docs-routes-'));
  for (const [iface, version] of [
    ['v1', '1.0.0'],
    ['v2', '2.0.0'],
  ]) {
    writeFileSync(
      join(dir, `openapi.${iface}.json`),
      JSON.stringify({ info: { title: `Interface ${iface}`, version } }),
    );
  }
  return dir;
}

describe('the API reference routes', () => {
  let fastify: FastifyInstance | undefined;
  let sdlCalls = 0;

  afterEach(async () => {
    await fastify?.close();
  });

  function serve(): FastifyInstance {
    fastify = Fastify();
    sdlCalls = 0;
    configureDocsRoutes(appOn(fastify), {
      openApiDir: openApiDir(),
      graphqlSdl: () => {
        sdlCalls += 1;
        return Promise.resolve('type Query {\n  pods: [Pod]\n}\n\ntype Pod {\n  id: ID!\n}\n');
      },
    });
    return fastify;
  }

  it('serves each page under a CSP without inline script or style, eval or other origins', async () => {
    const app = serve();
    for (const url of ['/docs', '/docs/v1', '/docs/v2', '/docs/graphql']) {
      const page = await app.inject({ method: 'GET', url });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['cache-control']).toBe('no-cache');
      for (const [name, value] of Object.entries(DOCS_SECURITY_HEADERS)) {
        expect(page.headers[name]).toBe(value);
      }
      const csp = page.headers['content-security-policy'] as string;
      expect(csp).not.toMatch(/unsafe-|sha256-|https?:|\*/);
      expect(csp).toContain("script-src 'self'");
      expect(page.body).not.toMatch(/<script>|<style|style=|https?:\/\//);
    }
    const redirect = await app.inject({ method: 'GET', url: '/docs/' });
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers.location).toBe('/docs');
  });

  it('names the documents on the index and loads each one into Swagger UI from this host', async () => {
    const app = serve();
    const index = (await app.inject({ method: 'GET', url: '/docs' })).body;
    expect(index).toContain('<a href="/docs/v1">REST v1</a>: Interface v1, version 1.0.0');
    expect(index).toContain('<a href="/v2/openapi.json">OpenAPI 3.1 document</a>');
    const { version } = swaggerUiDist();
    const v2 = (await app.inject({ method: 'GET', url: '/docs/v2' })).body;
    expect(v2).toContain('data-openapi-url="/v2/openapi.json"');
    expect(v2).toContain(
      `<script src="/docs/assets/swagger-ui-dist@${version}/swagger-ui-bundle.js"></script>`,
    );
    expect(v2).toContain('<a href="/docs/v2" aria-current="page">');
  });

  it('renders the SDL once, highlighted, with type names linked', async () => {
    const app = serve();
    const first = (await app.inject({ method: 'GET', url: '/docs/graphql' })).body;
    await app.inject({ method: 'GET', url: '/docs/graphql' });
    expect(sdlCalls).toBe(1);
    expect(first).toContain('<span class="sdl-field">pods</span>: [<a href="#type-Pod">Pod</a>]');
  });

  it('serves the installed Swagger UI files, versioned and immutable, gzipped when accepted', async () => {
    const app = serve();
    const { dir, version } = swaggerUiDist();
    const url = `/docs/assets/swagger-ui-dist@${version}/swagger-ui-bundle.js`;
    const plain = await app.inject({ method: 'GET', url });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.equals(readFileSync(join(dir, 'swagger-ui-bundle.js')))).toBe(true);

    const zipped = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, br' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('accept-encoding');
    expect(zipped.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
    expect(gunzipSync(zipped.rawPayload).equals(plain.rawPayload)).toBe(true);

    const css = await app.inject({
      method: 'GET',
      url: `/docs/assets/swagger-ui-dist@${version}/swagger-ui.css`,
    });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    const ours = await app.inject({ method: 'GET', url: '/docs/assets/reference.js' });
    expect(ours.headers['cache-control']).toBe('no-cache');
    expect(ours.body).toContain('supportedSubmitMethods: []');
  });

  it('answers 404 for any other file, such as another version or a path out of the package', async () => {
    const app = serve();
    for (const url of [
      '/docs/assets/swagger-ui-dist@0.0.1/swagger-ui-bundle.js',
      `/docs/assets/swagger-ui-dist@${swaggerUiDist().version}/../package.json`,
      '/docs/assets/swagger-ui-dist@x/index.html',
    ]) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });
});
