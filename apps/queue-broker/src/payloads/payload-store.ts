import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Kvm, type KV } from '@nats-io/kv';
import { PayloadBlobs, payloadBucketName, type BlobRef, type Packed } from '@app/contracts';
import { NatsClient } from '@app/messaging';
import { QueueBrokerConfig } from '../queue-broker.config.js';

/**
 * The broker's side of the blob transport (libs/contracts/src/jobs/payload-blobs.ts): reads inputs and outputs
 * the gateway stored as blobs, and stores results too large for one NATS message (a job's input handed to a
 * worker, a status with a large output, stream chunks).
 */
@Injectable()
export class PayloadStore implements OnModuleInit {
  private blobs: PayloadBlobs;

  constructor(
    private readonly nats: NatsClient,
    private readonly config: QueueBrokerConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    const kv = await new Kvm(this.nats.js).create(payloadBucketName(this.nats.prefix), {
      history: 1,
      replicas: this.nats.streamReplicas,
      ttl: this.config.PAYLOAD_BLOB_TTL_MS,
    });
    const { inlineLimit, chunkBytes } = PayloadBlobs.limitsFor(this.nats.nc.info?.max_payload ?? 1024 * 1024);
    this.blobs = new PayloadBlobs(adapt(kv), inlineLimit, chunkBytes);
  }

  pack<T>(id: string, value: T): Promise<Packed<T>> {
    return this.blobs.pack(id, value);
  }

  unpack<T>(value: Packed<T>): Promise<T> {
    return this.blobs.unpack(value);
  }

  /** The JSON text of a blob the gateway stored (an input or an output). */
  loadText(ref: BlobRef): Promise<string> {
    return this.blobs.loadText(ref);
  }

  remove(ref: BlobRef): Promise<void> {
    return this.blobs.remove(ref);
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
