import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * Authenticated encryption (AES-256-GCM) of small secrets such as registry passwords, with a key ring for
 * rotation: `keyRing` is `kid:base64key[,kid:base64key...]`; the first key seals, every key opens. A sealed
 * value is `v1.<kid>.<iv>.<tag>.<ciphertext>` (base64url), so it names the key that opens it. To rotate, put the
 * new key first and keep the old ones until every sealed value has been re-sealed.
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();
  private readonly activeKid: string;

  constructor(keyRing: string) {
    const entries = keyRing
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    for (const entry of entries) {
      const [kid, material] = entry.split(':');
      const key = Buffer.from(material ?? '', 'base64');
      if (!/^[A-Za-z0-9_-]{1,32}$/.test(kid ?? '') || key.length !== 32) {
        throw new Error('each key of the key ring must be <kid>:<32 bytes in base64>');
      }
      this.keys.set(kid, key);
    }
    if (!entries.length) throw new Error('the key ring is empty');
    this.activeKid = entries[0].split(':')[0];
  }

  static generateKey(kid = 'k1'): string {
    return `${kid}:${randomBytes(32).toString('base64')}`;
  }

  seal(plaintext: string, associatedData = ''): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.activeKid)!, iv);
    cipher.setAAD(Buffer.from(associatedData));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, this.activeKid, iv, cipher.getAuthTag(), ciphertext]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  open(sealed: string, associatedData = ''): string {
    const [version, kid, iv, tag, ciphertext] = sealed.split('.');
    const key = this.keys.get(kid ?? '');
    if (version !== VERSION || !key || !iv || !tag || ciphertext === undefined) {
      throw new Error(`cannot open sealed secret (unknown format or key ${kid ?? '?'})`);
    }
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(associatedData));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }

  /** The key ids of the ring, the sealing one first. */
  keyIds(): string[] {
    return [this.activeKid, ...[...this.keys.keys()].filter((kid) => kid !== this.activeKid)];
  }

  /** Whether `sealed` names a key of this ring (so `open` will try it, rather than refuse the format outright). */
  holds(sealed: string): boolean {
    return this.keys.has(sealed.split('.')[1] ?? '');
  }

  /** Whether `sealed` was sealed with a key other than the active one (needs re-sealing after a rotation). */
  isStale(sealed: string): boolean {
    return sealed.split('.')[1] !== this.activeKid;
  }
}
