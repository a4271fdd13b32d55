import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CONSOLE_SECURITY_HEADERS, configureConsoleRoutes } from './console-routes.setup.js';

function appOn(fastify: FastifyInstance): NestFastifyApplication {
  return { getHttpAdapter: () => ({ getInstance: () => fastify }) } as unknown as NestFastifyApplication;
}

describe('the console routes', () => {
  let fastify: FastifyInstance | undefined;

  afterEach(async () => {
    await fastify?.close();
  });

  function serve(dir: string): FastifyInstance {
    fastify = Fastify();
    configureConsoleRoutes(appOn(fastify), dir);
    return fastify;
  }

  function built(): string {
    const dir = mkdtempSync(join(tmpdir(), 'console-routes-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><script type="module" src="/console/assets/a.js"></script>',
    );
    writeFileSync(join(dir, 'assets', 'a.js'), 'console.log(1)');
    return dir;
  }

  it('serves index.html and the hashed assets under the security headers', async () => {
    const app = serve(built());
    const page = await app.inject({ method: 'GET', url: '/console/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    for (const [name, value] of Object.entries(CONSOLE_SECURITY_HEADERS)) {
      expect(page.headers[name]).toBe(value);
    }
    expect(page.headers['content-security-policy']).not.toMatch(/unsafe-(inline|eval)/);

    const script = await app.inject({ method: 'GET', url: '/console/assets/a.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.headers['x-content-type-options']).toBe('nosniff');
  });

  it('redirects /console to /console/, answers index.html for other paths, 404 for a missing asset', async () => {
    const app = serve(built());
    const bare = await app.inject({ method: 'GET', url: '/console' });
    expect(bare.statusCode).toBe(302);
    expect(bare.headers.location).toBe('/console/');
    // The gateway's root, where a browser pointed at the base URL lands, is the console too.
    const root = await app.inject({ method: 'GET', url: '/' });
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe('/console/');
    const deep = await app.inject({ method: 'GET', url: '/console/pods/abc?x=1' });
    expect(deep.statusCode).toBe(200);
    expect(deep.body).toContain('<!doctype html>');
    // A malformed escape is refused (Fastify's 400, the gateway's problem), never a crash.
    const malformed = await app.inject({ method: 'GET', url: '/console/%E0%A4%A' });
    expect(malformed.statusCode).toBeLessThan(500);
    const missing = await app.inject({ method: 'GET', url: '/console/assets/gone.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toContain('application/problem+json');
  });

  it('without a build, says how to make one', async () => {
    const app = serve(mkdtempSync(join(tmpdir(), 'console-routes-empty-')));
    const reply = await app.inject({ method: 'GET', url: '/console/' });
    expect(reply.statusCode).toBe(404);
    expect(reply.json<{ detail: string }>().detail).toMatch(/npm run build/);
    expect(reply.headers['content-security-policy']).toBe(
      CONSOLE_SECURITY_HEADERS['content-security-policy'],
    );
  });
});
