import { describe, expect, it } from '@jest/globals';
import { isWebhookUrl } from './webhook.contracts.js';

describe('isWebhookUrl', () => {
  it.each([
    'https://hooks.example.com/done',
    'http://127.0.0.1:9/unreachable', // well-formed: where it may go is decided at send time
    'https://example.com:8443/a/b?token=x#f',
    'http://[::1]:8080/',
  ])('accepts %s', (url) => expect(isWebhookUrl(url)).toBe(true));

  it.each([
    'file:///etc/passwd',
    'not a url',
    'ftp://example.com/x',
    'gopher://example.com:70/',
    'javascript:alert(1)',
    '/relative/path',
    'http://',
    `https://example.com/${'a'.repeat(2048)}`,
    42,
  ])('refuses %s', (url) => expect(isWebhookUrl(url)).toBe(false));
});
