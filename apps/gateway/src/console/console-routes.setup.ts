import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PROBLEM_CONTENT_TYPE, problem } from '../edge/problem.js';
import { REACT_ARIA_STYLE_HASHES } from './console-csp.js';

/** Where the console is served; its assets are built with this base (apps/console/vite.config.mjs). */
export const CONSOLE_PATH = '/console';

/**
 * The console's headers (docs/adr/0029-web-console.md). The policy allows only the console's own files and the
 * API of this same origin: no inline script, no inline style but the two stylesheets React Aria injects (allowed
 * by their hashes, console-csp.ts), no eval, no other origin, no framing.
 */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' ${REACT_ARIA_STYLE_HASHES.join(' ')}`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

interface ConsoleFile {
  body: Buffer;
  type: string;
  /** Vite's content-hashed names (assets/) never change: cached for a year; index.html always revalidated. */
  immutable: boolean;
}

/** Every file of the built console (a few hundred kB), read once at start. */
export function loadConsoleFiles(dir: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  if (!existsSync(join(dir, 'index.html'))) return files;
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const key = relative(dir, path).split(sep).join('/');
        files.set(key, {
          body: readFileSync(path),
          type: TYPES[extname(name)] ?? 'application/octet-stream',
          immutable: key.startsWith('assets/'),
        });
      }
    }
  };
  walk(dir);
  return files;
}

/**
 * Serves the web console (built by `npm run build` into dist/console) at /console (`/` redirects there), from memory, under
 * CONSOLE_SECURITY_HEADERS. Plain Fastify routes (no key: the page asks for one and sends it to the API
 * itself). A path that is no file answers index.html (the console's own routes live after `#`, so this only
 * keeps a reload of a mistyped address on the page). Without a build, /console says how to make one.
 */
export function configureConsoleRoutes(app: NestFastifyApplication, dir: string): void {
  const files = loadConsoleFiles(dir);
  const fastify = app.getHttpAdapter().getInstance();
  const serve = (request: FastifyRequest, reply: FastifyReply): void => {
    void reply.headers(CONSOLE_SECURITY_HEADERS);
    const index = files.get('index.html');
    if (!index) {
      void reply
        .status(404)
        .type(PROBLEM_CONTENT_TYPE)
        .send(problem(404, `the console is not built in ${dir}: run \`npm run build\``));
      return;
    }
    const path = request.url.split('?', 1)[0].slice(CONSOLE_PATH.length + 1);
    let file: ConsoleFile | undefined;
    try {
      file = files.get(decodeURIComponent(path));
    } catch {
      file = undefined; // a malformed escape names no file
    }
    if (file) {
      void reply
        .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
        .type(file.type)
        .send(file.body);
      return;
    }
    if (path.startsWith('assets/')) {
      void reply.status(404).type(PROBLEM_CONTENT_TYPE).send(problem(404, 'no such console asset'));
      return;
    }
    void reply.header('cache-control', 'no-cache').type(index.type).send(index.body);
  };
  // The gateway's root has no API of its own: a browser pointed at the base URL lands on the console.
  for (const path of ['/', CONSOLE_PATH]) {
    fastify.get(path, (_request, reply) => {
      void reply.redirect(`${CONSOLE_PATH}/`, 302);
    });
  }
  fastify.get(`${CONSOLE_PATH}/`, serve);
  fastify.get(`${CONSOLE_PATH}/*`, serve);
}
