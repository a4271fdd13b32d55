import { hash } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A resource id derived from the command that creates it, so a replay of the same command rebuilds the same id.
 * `part` distinguishes several resources created by one command (the pods of a cluster, say).
 */
export function deriveId(commandId: string, part: string | number = 0, length = 20): string {
  // The one-shot `hash` (no Hash object per call): a 250-pod cluster derives 250 ids in its create, and the
  // streaming API cost half as much again. Same SHA-256, so the ids (and every recorded history's) are unchanged.
  const digest = hash('sha256', `${commandId}/${part}`, 'buffer');
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[digest[i % digest.length] % ALPHABET.length];
  return out;
}
