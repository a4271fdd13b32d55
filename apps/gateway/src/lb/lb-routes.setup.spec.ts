import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import { lbHostRewriter } from './lb-routes.setup.js';
import { workerPath } from './lb.service.js';

const request = (host: string | undefined, url: string) => ({ headers: { host }, url }) as IncomingMessage;

describe('lbHostRewriter', () => {
  it('is off without LB_DOMAIN', () => {
    expect(lbHostRewriter('')).toBeUndefined();
  });

  it.each([
    { host: 'abc123.lb.example.com', url: '/v1/models?x=1', rewritten: '/lb/abc123/v1/models?x=1' },
    { host: 'ABC123.LB.example.com:8443', url: '/', rewritten: '/lb/abc123/' },
    { host: 'lb.example.com', url: '/v1/models', rewritten: '/v1/models' },
    { host: 'a.b.lb.example.com', url: '/x', rewritten: '/x' },
    { host: 'api.example.com', url: '/v2/pods', rewritten: '/v2/pods' },
    { host: 'abc.lb.example.com.evil.net', url: '/', rewritten: '/' },
    { host: undefined, url: '/healthz', rewritten: '/healthz' },
  ])('$host $url → $rewritten', ({ host, url, rewritten }) => {
    expect(lbHostRewriter('lb.example.com')!(request(host, url))).toBe(rewritten);
  });
});

describe('workerPath', () => {
  it.each([
    ['/lb/ep1/v1/models?x=1', '/v1/models?x=1'],
    ['/lb/ep1', '/'],
    ['/lb/ep1/', '/'],
    ['/lb/ep1?x=1', '/?x=1'],
  ])('%s → %s', (url, path) => {
    expect(workerPath(url, 'ep1')).toBe(path);
  });
});
