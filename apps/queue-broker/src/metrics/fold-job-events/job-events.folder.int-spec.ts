import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  Subjects,
  type JobChangedEvent,
  type JobChangedManyEvent,
  type JobQueuedEvent,
  type JobQueuedManyEvent,
} from '@app/contracts';
import { appDataSourceOptions } from '@app/database';
import { NatsClient, ensureStreams, type EventEnvelope } from '@app/messaging';
import { deleteStreams } from '../../../../../test/support/system.js';
import { createTestDatabase, type TestDatabase } from '../../../../../test/support/test-database.js';
import { testEnv } from '../../../../../test/support/test-env.js';
import { DATA_SOURCE_SPEC } from '../../data-source.js';
import { QueueBrokerConfig } from '../../queue-broker.config.js';
import { MetricsRepository } from '../metrics.repository.js';
import { JOB_EVENTS_CURSOR, JobEventsFolder } from './job-events.folder.js';

/**
 * The metrics leader's folding against real NATS and Postgres: job events published to the events stream become
 * rollup counts and histograms, in batches, and each counts once however often the folder runs.
 */
describe('JobEventsFolder', () => {
  const prefix = `mf${randomBytes(4).toString('hex')}`;
  const at = new Date('2026-11-24T10:15:30Z');
  let db: TestDatabase;
  let dataSource: DataSource;
  let nats: NatsClient;
  let metrics: MetricsRepository;
  let folder: JobEventsFolder;

  const publish = async (
    subject: string,
    payload: JobChangedEvent | JobQueuedEvent | JobChangedManyEvent | JobQueuedManyEvent,
  ) => {
    const event: EventEnvelope = {
      eventId: randomUUID(),
      subject,
      occurredAt: at.toISOString(),
      correlationId: 'c',
      payload,
    };
    await nats.js.publish(nats.subject(subject), JSON.stringify(event));
  };
  const finished = (status: JobChangedEvent['status'], executionMs: number | null): JobChangedEvent => ({
    endpointId: 'ep1',
    jobId: randomUUID(),
    status,
    timing: { delayMs: executionMs === null ? null : 20, executionMs },
  });
  /** Folds for a little while (the folder runs until its leadership ends). */
  const fold = async () => {
    const until = Date.now() + 2500;
    await folder.run(() => Date.now() < until);
  };
  const minuteRow = async () => (await metrics.read('ep1', 60, new Date('2026-11-24T10:00:00Z')))[0];

  beforeAll(async () => {
    db = await createTestDatabase('metrics_fold', { apps: ['queue-broker'] });
    dataSource = new DataSource(appDataSourceOptions(DATA_SOURCE_SPEC, db.url, 2));
    await dataSource.initialize();
    nats = await NatsClient.connect(testEnv().natsUrl, prefix, 'metrics-fold-int-spec');
    await ensureStreams(nats);
    metrics = new MetricsRepository(dataSource);
    folder = new JobEventsFolder(
      nats,
      metrics,
      Object.assign(new QueueBrokerConfig(), { METRICS_BATCH_MAX: 2 }),
    );
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await deleteStreams(prefix);
    await nats?.drain();
    await db?.drop();
  });

  it('folds finished jobs and retries into the minute and the hour, in batches, once each', async () => {
    await publish(Subjects.job.changed, finished('COMPLETED', 1000));
    await publish(Subjects.job.changed, finished('COMPLETED', 1000));
    await publish(Subjects.job.changed, finished('FAILED', 50));
    await publish(Subjects.job.changed, finished('CANCELLED', null));
    await publish(Subjects.job.changed, { ...finished('IN_PROGRESS', null), timing: undefined });
    await publish(Subjects.job.queued, { endpointId: 'ep1', jobId: 'j', retried: true });
    await publish(Subjects.job.queued, { endpointId: 'ep1', jobId: 'k' });
    await fold();
    const expected = { completed: 2, failed: 1, cancelled: 1, timedOut: 0, retried: 1 };
    expect(await minuteRow()).toMatchObject({ ...expected, bucketStart: new Date('2026-11-24T10:15:00Z') });
    const [hour] = await metrics.read('ep1', 3600, new Date('2026-11-24T00:00:00Z'));
    expect(hour).toMatchObject(expected);
    expect(hour.execHist.reduce((a, b) => a + b, 0)).toBe(3);
    expect(hour.execHist[40]).toBe(2); // 1000 ms: bucket ⌈4·log2(1000)⌉ = 40
    expect(await metrics.cursor(JOB_EVENTS_CURSOR)).toBe(7);

    await fold(); // nothing new: nothing counted again
    expect(await minuteRow()).toMatchObject(expected);

    await publish(Subjects.job.changed, finished('TIMED_OUT', 600_000));
    await fold();
    expect(await minuteRow()).toMatchObject({ ...expected, timedOut: 1 });
  });

  it("counts each job of a command's changed-many and queued-many as its own event would count", async () => {
    const on = (endpointId: string, e: JobChangedEvent) => ({ ...e, endpointId });
    await publish(Subjects.job.changedMany, {
      jobs: [
        on('ep2', finished('COMPLETED', 1000)),
        on('ep2', finished('COMPLETED', 1000)),
        on('ep2', finished('FAILED', 50)),
        on('ep2', { ...finished('IN_PROGRESS', null), timing: undefined }),
      ],
    });
    await publish(Subjects.job.queuedMany, {
      jobs: [
        { endpointId: 'ep2', jobId: 'r1', retried: true },
        { endpointId: 'ep2', jobId: 'q1' },
        { endpointId: 'ep2', jobId: 'r2', retried: true },
      ],
    });
    await fold();
    const [minute] = await metrics.read('ep2', 60, new Date('2026-11-24T10:00:00Z'));
    expect(minute).toMatchObject({ completed: 2, failed: 1, cancelled: 0, timedOut: 0, retried: 2 });
    expect(minute.execHist[40]).toBe(2);
    expect(minute.execHist.reduce((a, b) => a + b, 0)).toBe(3);
  });

  it('moves the cursor only from where this replica read it', async () => {
    const current = await metrics.cursor(JOB_EVENTS_CURSOR);
    const moved = await dataSource.transaction((m) =>
      metrics.advanceCursor(JOB_EVENTS_CURSOR, current - 1, current + 5, m),
    );
    expect(moved).toBe(false);
    expect(await metrics.cursor(JOB_EVENTS_CURSOR)).toBe(current);
  });
});
