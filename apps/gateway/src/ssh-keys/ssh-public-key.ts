import { createHash } from 'node:crypto';

export interface ParsedSshKey {
  type: string;
  fingerprint: string;
  comment: string;
  /** `<type> <base64>` plus the comment, whitespace normalised. */
  line: string;
}

/**
 * Parses an OpenSSH public key line and checks that the blob really is a key of the type it claims (the blob
 * starts with its own type name). Returns null for anything else.
 */
export function parseSshPublicKey(text: string): ParsedSshKey | null {
  const [type, data, ...rest] = text.trim().split(/\s+/);
  if (!type || !data) return null;
  const blob = Buffer.from(data, 'base64');
  if (blob.length < 4 || blob.toString('base64') !== data) return null;
  const nameLength = blob.readUInt32BE(0);
  if (nameLength > blob.length - 4 || blob.subarray(4, 4 + nameLength).toString('latin1') !== type) {
    return null;
  }
  const comment = rest.join(' ');
  const fingerprint = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
  return { type, fingerprint, comment, line: comment ? `${type} ${data} ${comment}` : `${type} ${data}` };
}
