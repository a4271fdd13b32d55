import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { nanos } from '@nats-io/transport-node';
import { deleteStreams } from '../../../test/support/system.js';
import { testEnv } from '../../../test/support/test-env.js';
import { NatsClient } from './nats-client.js';
import { ensureLogStream } from './stream-topology.js';

/** The LOGS stream against a real NATS: created with the retention asked, its limits following the settings. */
describe('ensureLogStream', () => {
  const prefix = `logs${randomBytes(4).toString('hex')}`;
  let client: NatsClient;

  beforeAll(async () => {
    client = await NatsClient.connect(testEnv().natsUrl, prefix, 'log-stream-int-spec');
  });

  afterAll(async () => {
    await deleteStreams(prefix);
    await client?.drain();
  });

  const config = async () => (await client.jsm.streams.info(`${prefix}_LOGS`)).config;

  it('creates the stream on the pods’ log subjects with the limits, and updates them when they change', async () => {
    await ensureLogStream(client, { maxAgeMs: 3_600_000, maxBytes: 1 << 20, maxMsgsPerSubject: 100 });
    expect(await config()).toMatchObject({
      subjects: [`${prefix}.logs.*`],
      max_age: nanos(3_600_000),
      max_bytes: 1 << 20,
      max_msgs_per_subject: 100,
    });

    await ensureLogStream(client, { maxAgeMs: 7_200_000, maxBytes: 2 << 20, maxMsgsPerSubject: 50 });
    expect(await config()).toMatchObject({
      max_age: nanos(7_200_000),
      max_bytes: 2 << 20,
      max_msgs_per_subject: 50,
    });
    await ensureLogStream(client, { maxAgeMs: 7_200_000, maxBytes: 2 << 20, maxMsgsPerSubject: 50 }); // unchanged
  });
});
