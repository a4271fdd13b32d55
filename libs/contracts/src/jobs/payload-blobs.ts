/**
 * Payloads larger than one NATS message (the server's `max_payload`, 1 MB by default) travel as blobs: the sender
 * writes the JSON text in chunks to a JetStream key-value bucket and sends a `BlobRef` in its place; the receiver
 * reads the chunks back. Only the transport uses blobs: Postgres always holds the JSON itself.
 *
 * The bucket is given as a tiny interface so this module needs no NATS client (each app adapts its `KV`).
 */
export interface BlobBucket {
  put(key: string, value: Uint8Array): Promise<unknown>;
  /** The value, or null when the key is missing or deleted. */
  get(key: string): Promise<Uint8Array | null>;
  purge(key: string): Promise<unknown>;
}

/** In place of a JSON value too large for one message. */
export interface BlobRef {
  $blob: string;
  bytes: number;
  chunks: number;
}

export type Packed<T> = T | BlobRef;

export function isBlobRef(value: unknown): value is BlobRef {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as BlobRef).$blob === 'string' &&
    typeof (value as BlobRef).chunks === 'number'
  );
}

/** Key-value keys allow `[-/_=.a-zA-Z0-9]`. */
function safeKey(id: string): string {
  return id.replace(/[^-_=a-zA-Z0-9]/g, '_');
}

export class PayloadBlobs {
  /**
   * @param inlineLimit JSON texts up to this many bytes travel inline (leave room for the envelope and headers)
   * @param chunkBytes  size of one stored chunk (at most the server's max_payload minus headers)
   */
  constructor(
    private readonly bucket: BlobBucket,
    readonly inlineLimit: number,
    private readonly chunkBytes: number = inlineLimit,
  ) {}

  /** Derives the limits from the server's `max_payload`: 64 KiB is left for envelopes and headers. */
  static limitsFor(maxPayload: number): { inlineLimit: number; chunkBytes: number } {
    const inlineLimit = Math.max(16 * 1024, maxPayload - 64 * 1024);
    return { inlineLimit, chunkBytes: inlineLimit };
  }

  fits(json: string): boolean {
    return Buffer.byteLength(json) <= this.inlineLimit;
  }

  /** The value itself when it fits in a message, otherwise a blob named `id` holding it. */
  async pack<T>(id: string, value: T): Promise<Packed<T>> {
    const json = JSON.stringify(value ?? null);
    if (this.fits(json)) return value;
    return this.store(id, json);
  }

  /** Stores JSON text as blob `id` (chunk keys `<id>.<n>`). */
  async store(id: string, json: string): Promise<BlobRef> {
    const bytes = Buffer.from(json);
    const key = safeKey(id);
    let chunks = 0;
    for (let offset = 0; offset < bytes.length || chunks === 0; offset += this.chunkBytes) {
      await this.bucket.put(`${key}.${chunks}`, bytes.subarray(offset, offset + this.chunkBytes));
      chunks += 1;
    }
    return { $blob: key, bytes: bytes.length, chunks };
  }

  /** The JSON text of a blob; throws when a chunk is gone (expired or removed). */
  async loadText(ref: BlobRef): Promise<string> {
    const parts: Uint8Array[] = [];
    for (let i = 0; i < ref.chunks; i++) {
      const part = await this.bucket.get(`${ref.$blob}.${i}`);
      if (!part) throw new BlobMissingError(ref.$blob);
      parts.push(part);
    }
    const text = Buffer.concat(parts).toString('utf8');
    if (Buffer.byteLength(text) !== ref.bytes) throw new BlobMissingError(ref.$blob);
    return text;
  }

  async unpack<T>(value: Packed<T>): Promise<T> {
    if (!isBlobRef(value)) return value;
    return JSON.parse(await this.loadText(value)) as T;
  }

  /** Removes a blob once its one reader has it (the bucket's max age removes forgotten ones). */
  async remove(ref: BlobRef): Promise<void> {
    for (let i = 0; i < ref.chunks; i++) await this.bucket.purge(`${ref.$blob}.${i}`);
  }
}

export class BlobMissingError extends Error {
  constructor(readonly blob: string) {
    super(`payload ${blob} is no longer available in the payload bucket`);
    this.name = 'BlobMissingError';
  }
}

/** Name of the key-value bucket holding blobs (prefixed with the deployment's NATS prefix). */
export function payloadBucketName(prefix: string): string {
  return `${prefix}_payloads`;
}
