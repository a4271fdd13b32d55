import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { BaseConfig } from '@app/config';
import { DomainError, ErrorCode, Subjects, type CommandEnvelope } from '@app/contracts';
import { messagingDataSource } from '../../../test/support/messaging-data-source.js';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import type { BatchItem, MessageIdentity } from './applied-message.js';
import { auditEventId } from './audited-refusal.js';
import { auditOfRefusal } from './command-work.js';
import { FaultInjector } from './fault-injector.js';
import { MessageProcessor } from './message-processor.js';

/**
 * An audited command's refusal on real Postgres: its processed row and its `audit.evt.recorded` outbox row commit
 * together, whichever way the processor came to apply it alone (first delivery, redelivery, a batch that failed),
 * once however often it is recorded; a command not audited writes no outbox row.
 */

const SCHEMA = 'queue_broker';
let database: TestDatabase | undefined;
let dataSource: DataSource;
let processor: MessageProcessor;

beforeAll(async () => {
  database = await createTestDatabase('audited_refusal');
  dataSource = await messagingDataSource(database, SCHEMA, 3, 'audited-refusal-int-spec');
  processor = new MessageProcessor(dataSource, new FaultInjector(new BaseConfig()));
});

afterAll(async () => {
  if (dataSource?.isInitialized) await dataSource.destroy();
  await database?.drop();
});

function command(subject: string): { identity: MessageIdentity; envelope: CommandEnvelope } {
  const envelope: CommandEnvelope = {
    commandId: randomUUID(),
    issuedAt: '2026-12-01T10:00:00.000Z',
    actor: { userId: 'team_1', memberId: 'u-2', keyId: 'k-2', kind: 'user' },
    correlationId: `corr-${randomUUID()}`,
    subject,
    payload: { podId: 'pod-1' },
  };
  const identity = {
    id: envelope.commandId,
    subject,
    issuedAt: envelope.issuedAt,
    correlationId: envelope.correlationId,
    actorUserId: envelope.actor.userId,
  };
  return { identity, envelope };
}

function refused(subject: string, fresh: boolean): BatchItem {
  const { identity, envelope } = command(subject);
  return {
    message: identity,
    fresh,
    audit: auditOfRefusal(subject, envelope),
    effect: () => Promise.reject(new DomainError(ErrorCode.Forbidden, 'not your pod')),
  };
}

async function outboxOf(commandId: string): Promise<{ id: string; subject: string; payload: unknown }[]> {
  return dataSource.query(`SELECT id, subject, payload FROM ${SCHEMA}.outbox WHERE id = $1`, [
    auditEventId(commandId),
  ]);
}

describe('an audited refusal', () => {
  it('commits its entry with its processed row, on a first delivery and on a redelivery', async () => {
    for (const fresh of [true, false]) {
      const item = refused(Subjects.pod.stop, fresh);
      const [result] = await processor.processBatch([item]);
      expect(result).toMatchObject({ outcome: { ok: false, error: { code: ErrorCode.Forbidden } } });
      const rows = await outboxOf(item.message.id);
      expect(rows).toEqual([
        {
          id: auditEventId(item.message.id),
          subject: Subjects.audit.recorded,
          payload: expect.objectContaining({
            accountId: 'team_1',
            actor: { userId: 'u-2', keyId: 'k-2', kind: 'user' },
            action: 'pod.stop',
            resourceId: 'pod-1',
            outcome: { ok: false, code: ErrorCode.Forbidden, message: 'not your pod' },
          }),
        },
      ]);
      expect((result as { events: unknown[] }).events).toHaveLength(1);
    }
  });

  it('keeps it when its batch fails and its commands are applied one at a time', async () => {
    const ok: BatchItem = {
      message: command(Subjects.pod.start).identity,
      fresh: true,
      effect: () => Promise.resolve(1),
    };
    const bad = refused(Subjects.pod.stop, true);
    const [first, second] = await processor.processBatch([ok, bad]);
    expect(first).toMatchObject({ outcome: { ok: true } });
    expect(second).toMatchObject({ outcome: { ok: false } });
    expect(await outboxOf(bad.message.id)).toHaveLength(1);
  });

  it('is entered once however often the refusal is recorded', async () => {
    const item = refused(Subjects.pod.stop, true);
    await processor.processBatch([item]);
    const again = await processor.recordFailure(
      item.message,
      { code: ErrorCode.Forbidden, message: 'x' },
      null,
      item.audit,
    );
    expect(again.duplicate).toBe(true);
    expect(await outboxOf(item.message.id)).toHaveLength(1);
  });

  it('writes nothing to the outbox for a command that is not audited', async () => {
    const { identity, envelope } = command(Subjects.job.cancel);
    expect(auditOfRefusal(Subjects.job.cancel, envelope)).toBeUndefined();
    await processor.processBatch([
      {
        message: identity,
        fresh: true,
        effect: () => Promise.reject(new DomainError(ErrorCode.NotFound, 'no')),
      },
    ]);
    expect(await outboxOf(identity.id)).toEqual([]);
  });
});
