import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { HINTED_EVENTS, Subjects, hintSubject } from '@app/contracts';
import { testEnv } from '../../../test/support/test-env.js';
import { IssuerReplies } from './issuer-replies.js';
import type { EmittedEvent } from './applied-message.js';
import { NatsClient } from './nats-client.js';

/**
 * An owner's hints on a real NATS: a hint goes out for the events the gateway's long polls wait for, and for no
 * other event (nobody listens for those; a 250-pod cluster's created event was sent twice for nothing).
 */

let client: NatsClient;
const prefix = `hints${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  client = await NatsClient.connect(testEnv().natsUrl, prefix, 'issuer-replies-int-spec');
});

afterAll(async () => {
  await client?.drain();
});

const event = (subject: string, n: number): EmittedEvent => ({
  id: `evt-${n}`,
  subject,
  payload: { n },
  correlationId: `corr-${n}`,
  occurredAt: new Date(0).toISOString(),
});

describe('IssuerReplies.hint', () => {
  it('publishes the hint of a job or worker-stop event, and none of any other event', async () => {
    const heard: string[] = [];
    const sub = client.nc.subscribe(client.subject(hintSubject('>')), {
      callback: (_error, msg) => {
        heard.push(msg.subject);
      },
    });
    await client.nc.flush();
    const replies = new IssuerReplies(client, 'queue-broker');
    const subjects = [
      Subjects.job.queued,
      Subjects.cluster.created,
      Subjects.job.changed,
      Subjects.pod.statusChanged,
      Subjects.job.queuedMany,
      Subjects.job.changedMany,
      Subjects.worker.stopRequested,
    ];
    const hinted = [
      Subjects.job.queued,
      Subjects.job.changed,
      Subjects.job.queuedMany,
      Subjects.job.changedMany,
      Subjects.worker.stopRequested,
    ];
    subjects.forEach((subject, n) => replies.hint(event(subject, n)));
    // A round trip to the server after the publishes: whatever it routed to us has been delivered by then.
    await client.nc.flush();
    await new Promise((resolve) => setTimeout(resolve, 100));
    sub.unsubscribe();
    expect(heard).toEqual(hinted.map((s) => client.subject(hintSubject(s))));
    expect([...HINTED_EVENTS].sort()).toEqual([...hinted].sort());
  });
});
