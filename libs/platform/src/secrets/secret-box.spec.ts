import { describe, expect, it } from '@jest/globals';
import { SecretBox } from './secret-box.js';

describe('SecretBox', () => {
  const k1 = SecretBox.generateKey('k1');
  const k2 = SecretBox.generateKey('k2');

  it('opens what it sealed, and the sealed form names its key and hides the plaintext', () => {
    const box = new SecretBox(k1);
    const sealed = box.seal('hunter2');
    expect(sealed).toMatch(/^v1\.k1\./);
    expect(sealed).not.toContain('hunter2');
    expect(box.open(sealed)).toBe('hunter2');
  });

  it('seals the same plaintext differently each time (random IV)', () => {
    const box = new SecretBox(k1);
    expect(box.seal('x')).not.toBe(box.seal('x'));
  });

  it('rejects a tampered ciphertext or the wrong associated data (authenticated encryption)', () => {
    const box = new SecretBox(k1);
    const sealed = box.seal('hunter2', 'cred-1');
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[4], 'base64url');
    flipped[0] ^= 1;
    parts[4] = flipped.toString('base64url');
    expect(() => box.open(parts.join('.'), 'cred-1')).toThrow();
    expect(() => box.open(sealed, 'cred-2')).toThrow();
  });

  it('rotates: the first key seals, every key opens, and stale values are recognised', () => {
    const old = new SecretBox(k1).seal('s');
    const rotated = new SecretBox(`${k2},${k1}`);
    expect(rotated.open(old)).toBe('s');
    expect(rotated.isStale(old)).toBe(true);
    const fresh = rotated.seal('s');
    expect(fresh).toMatch(/^v1\.k2\./);
    expect(rotated.isStale(fresh)).toBe(false);
    expect(() => new SecretBox(k2).open(old)).toThrow(/key k1/);
  });

  it.each(['', 'k1', 'k1:short', `bad kid:${Buffer.alloc(32).toString('base64')}`])(
    'refuses a malformed key ring %j',
    (ring) => {
      expect(() => new SecretBox(ring)).toThrow();
    },
  );
});
