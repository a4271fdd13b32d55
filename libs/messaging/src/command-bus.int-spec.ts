import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { deriveId, Streams, Subjects, type CommandEnvelope } from '@app/contracts';
import type { BaseConfig } from '@app/config';
import { deleteStreams } from '../../../test/support/system.js';
import { testEnv } from '../../../test/support/test-env.js';
import { CommandBus } from './command-bus.js';
import type { EventEnvelope } from './handler-context.js';
import { NatsClient } from './nats-client.js';
import { QueryBus } from './query-bus.js';
import { ensureStreams } from './stream-topology.js';

/**
 * `CommandBus.recordReaction` against a real JetStream: the command an event handler records in answer to an event
 * (a placement release, a cluster's members) is the same command however often the event is delivered, carries the
 * event's time, and is never recorded by an app in REPLAY_MODE, where the replayed stream already holds it.
 */
describe('CommandBus.recordReaction', () => {
  const prefix = `rr${randomBytes(4).toString('hex')}`;
  let client: NatsClient;

  const busWith = (replayMode: boolean) => {
    const config = { REPLAY_MODE: replayMode, BUS_REQUEST_TIMEOUT_MS: 5000 } as BaseConfig;
    return new CommandBus(client, new QueryBus(client, config), config);
  };

  const event = (): EventEnvelope => ({
    eventId: randomUUID(),
    subject: Subjects.pod.statusChanged,
    occurredAt: '2026-11-24T10:00:00.000Z',
    correlationId: `test-${randomUUID()}`,
    payload: {},
  });

  /** The commands the stream holds, oldest first. */
  async function recorded(): Promise<CommandEnvelope[]> {
    const stream = client.streamName(Streams.Commands);
    const { state } = await client.jsm.streams.info(stream);
    const out: CommandEnvelope[] = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages; seq++) {
      const message = await client.jsm.streams.getMessage(stream, { seq });
      if (message) out.push(message.json<CommandEnvelope>());
    }
    return out;
  }

  beforeAll(async () => {
    client = await NatsClient.connect(testEnv().natsUrl, prefix, 'command-bus-int-spec');
    await ensureStreams(client);
  });

  afterAll(async () => {
    await deleteStreams(prefix);
    await client?.drain();
  });

  it("records one command per event and part, with an id derived from the event's and the event's time", async () => {
    const bus = busWith(false);
    const heard = event();
    const payload = { podId: 'pod-1' };
    await bus.recordReaction(heard, 'release', Subjects.placement.release, payload, 'user-1');
    // The event delivered again (its handler's ack lost): the same command, which JetStream keeps once.
    await bus.recordReaction(heard, 'release', Subjects.placement.release, payload, 'user-1');
    // Another part of the same event is another command.
    await bus.recordReaction(heard, 'other', Subjects.placement.release, payload, 'user-1');
    const commands = await recorded();
    expect(commands).toHaveLength(2);
    expect(commands[0]).toMatchObject({
      commandId: deriveId(heard.eventId, 'release'),
      issuedAt: heard.occurredAt,
      actor: { userId: 'user-1', kind: 'system' },
      subject: Subjects.placement.release,
      payload,
    });
    expect(commands[1].commandId).toBe(deriveId(heard.eventId, 'other'));
  });

  it('records nothing in REPLAY_MODE', async () => {
    const before = (await recorded()).length;
    await busWith(true).recordReaction(event(), 'release', Subjects.placement.release, { podId: 'p' }, 'u');
    expect(await recorded()).toHaveLength(before);
  });
});
