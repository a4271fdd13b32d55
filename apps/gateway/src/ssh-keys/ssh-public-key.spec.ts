import { describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { parseSshPublicKey } from './ssh-public-key.js';

function ed25519Line(comment: string): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const part = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return `ssh-ed25519 ${Buffer.concat([part(Buffer.from('ssh-ed25519')), part(raw)]).toString('base64')} ${comment}`;
}

describe('parseSshPublicKey', () => {
  it('reads the type, the comment and an OpenSSH-style fingerprint', () => {
    const line = ed25519Line('me@laptop');
    const parsed = parseSshPublicKey(`  ${line}\n`)!;
    expect(parsed).toMatchObject({ type: 'ssh-ed25519', comment: 'me@laptop', line });
    expect(parsed.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(parseSshPublicKey(line.replace(' me@laptop', ''))!.fingerprint).toBe(parsed.fingerprint);
  });

  it.each([
    ['no key data', 'ssh-ed25519'],
    ['not base64', 'ssh-ed25519 !!!!'],
    ['a blob of another type', ed25519Line('x').replace('ssh-ed25519', 'ssh-rsa')],
    ['a truncated blob', 'ssh-ed25519 AAAA'],
  ])('refuses %s', (_label, text) => {
    expect(parseSshPublicKey(text)).toBeNull();
  });
});
