import type { Actor } from './envelope.js';

/** Queries carry the caller so the owner can enforce ownership (403 for another user's resource). */
export interface QueryEnvelope<P = unknown> {
  actor: Actor;
  correlationId: string;
  payload: P;
}
