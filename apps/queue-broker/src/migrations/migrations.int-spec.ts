import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MigratedSchema, OUTBOX_PAYLOAD } from '../../../../test/support/migration-checks.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';

/** queue-broker's committed migrations, applied as a deployment applies them, against its entities and its outbox. */

let schema: MigratedSchema;

beforeAll(async () => {
  schema = await MigratedSchema.create('queue-broker', DATA_SOURCE_SPEC);
});

afterAll(async () => {
  await schema?.drop();
});

describe('queue-broker migrations', () => {
  it('build exactly the schema its entities describe (an entity changed without its migration fails here)', async () => {
    expect(await schema.drift()).toEqual([]);
  });

  it('leave the outbox payload json, and OutboxJsonPayload keeps an unrelayed event through a downgrade and back', async () => {
    expect(await schema.outboxThroughDowngrade()).toEqual([
      { type: 'json', payload: OUTBOX_PAYLOAD },
      { type: 'jsonb', payload: OUTBOX_PAYLOAD },
      { type: 'json', payload: OUTBOX_PAYLOAD },
    ]);
  });
});
