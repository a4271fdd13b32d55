import { Injectable } from '@nestjs/common';

/** Views kept: some thousand accounts' lists of a thousand pods at most, a kilobyte each. */
const MAX_ENTRIES = 20_000;
/**
 * A view older than this is made again: the row version (xmin, 32 bits) that vouches for it could only come back
 * after some four billion transactions, far beyond this.
 */
const MAX_AGE_MS = 10 * 60_000;

interface Entry {
  version: string;
  json: Buffer;
  at: number;
}

/**
 * Pods' v2 views as JSON text, by pod, by whether secrets show, and by the version of the row they were made from
 * (Postgres' `xmin`, new at every update of the row): a view is a function of its row alone, so one made from the
 * row's current version is the view a new read would make. A list read again (a console polls it) then costs its
 * keyset read and the changed pods' rows, not every pod's row, view and JSON (ADR 46). Kept as UTF-8, as the
 * reply sends them. The oldest views go first past MAX_ENTRIES; each replica keeps its own.
 */
@Injectable()
export class PodV2ViewCache {
  private readonly entries = new Map<string, Entry>();

  /** The view made from this version of the pod's row, if kept and not too old. */
  get(podId: string, version: string, secrets: boolean, now = Date.now()): Buffer | undefined {
    const entry = this.entries.get(keyOf(podId, secrets));
    if (!entry || entry.version !== version || now - entry.at > MAX_AGE_MS) return undefined;
    return entry.json;
  }

  set(podId: string, version: string, secrets: boolean, json: Buffer, now = Date.now()): void {
    const key = keyOf(podId, secrets);
    this.entries.delete(key);
    this.entries.set(key, { version, json, at: now });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }
}

const keyOf = (podId: string, secrets: boolean) => `${secrets ? 's' : 'm'}:${podId}`;
