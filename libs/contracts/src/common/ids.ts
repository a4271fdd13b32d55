import { createHash } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A resource id derived from the command that creates it, so a replay of the same command rebuilds the same id.
 * `part` distinguishes several resources created by one command (the pods of a cluster, say).
 */
export function deriveId(commandId: string, part: string | number = 0, length = 20): string {
  const digest = createHash('sha256').update(`${commandId}/${part}`).digest();
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[digest[i % digest.length] % ALPHABET.length];
  return out;
}
