import { describe, expect, it } from '@jest/globals';
import { boundAddress, isLoopback } from './metrics-server.js';

describe('boundAddress', () => {
  it('writes what is bound, not the URL Nest would print (0.0.0.0 stays 0.0.0.0)', () => {
    expect(boundAddress({ address: '0.0.0.0', family: 'IPv4', port: 8080 })).toBe('0.0.0.0:8080');
    expect(boundAddress({ address: '127.0.0.1', family: 'IPv4', port: 9081 })).toBe('127.0.0.1:9081');
  });

  it('brackets IPv6 addresses', () => {
    expect(boundAddress({ address: '::', family: 'IPv6', port: 8080 })).toBe('[::]:8080');
    expect(boundAddress({ address: '::1', family: 'IPv6', port: 9080 })).toBe('[::1]:9080');
  });

  it('says when nothing is bound, and keeps a socket path', () => {
    expect(boundAddress(null)).toBe('not listening');
    expect(boundAddress('/run/app.sock')).toBe('/run/app.sock');
  });
});

describe('isLoopback', () => {
  it.each(['127.0.0.1:8081', '127.1.2.3:1', '[::1]:9080', '[::ffff:127.0.0.1]:80'])('%s is loopback', (a) => {
    expect(isLoopback(a)).toBe(true);
  });

  it.each(['0.0.0.0:8080', '[::]:8080', '10.0.0.5:8080', '192.168.1.2:9090'])('%s is not', (a) => {
    expect(isLoopback(a)).toBe(false);
  });
});
