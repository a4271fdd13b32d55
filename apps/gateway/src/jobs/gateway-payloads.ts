import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Kvm, type KV } from '@nats-io/kv';
import { PayloadBlobs, isBlobRef, payloadBucketName, type BlobRef, type Packed } from '@app/contracts';
import { NatsClient } from '@app/messaging';

const BLOB_TTL_MS = 24 * 3600_000;

/**
 * The gateway's side of the blob transport (libs/contracts/src/jobs/payload-blobs.ts): inputs and worker outputs
 * too large for one NATS message go to the payload bucket in chunks before the command that names them; large
 * answers of the broker come back the same way and are removed once read.
 */
@Injectable()
export class GatewayPayloads implements OnModuleInit {
  private readonly logger = new Logger('payloads');
  private blobs: PayloadBlobs;

  constructor(private readonly nats: NatsClient) {}

  async onModuleInit(): Promise<void> {
    const kv = await new Kvm(this.nats.js).create(payloadBucketName(this.nats.prefix), {
      history: 1,
      replicas: this.nats.streamReplicas,
      ttl: BLOB_TTL_MS,
    });
    const { inlineLimit, chunkBytes } = PayloadBlobs.limitsFor(this.nats.nc.info?.max_payload ?? 1024 * 1024);
    this.blobs = new PayloadBlobs(adapt(kv), inlineLimit, chunkBytes);
  }

  /** The value inline when it fits in a command, else a blob named after the command. */
  async packJson(id: string, json: string): Promise<{ inline: true } | { inline: false; ref: BlobRef }> {
    if (this.blobs.fits(json)) return { inline: true };
    return { inline: false, ref: await this.blobs.store(id, json) };
  }

  /** Reads a broker answer, removing its blob (one reader) in the background. */
  async take<T>(value: Packed<T>): Promise<T> {
    if (!isBlobRef(value)) return value;
    const result = await this.blobs.unpack<T>(value);
    this.blobs
      .remove(value)
      .catch((error: Error) => this.logger.warn(`blob ${value.$blob} not removed: ${error.message}`));
    return result;
  }
}

function adapt(kv: KV) {
  return {
    put: (key: string, value: Uint8Array) => kv.put(key, value),
    get: async (key: string) => {
      const entry = await kv.get(key);
      return entry && entry.operation === 'PUT' ? entry.value : null;
    },
    purge: (key: string) => kv.purge(key),
  };
}
