import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { Subjects, type CommandOutcome } from '@app/contracts';
import {
  closeBus,
  commandEnvelope,
  publishCommand,
  request,
  sendCommand,
  waitOutcome,
} from '../support/bus.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

/**
 * The command path of the foundation, over the real pod-lifecycle process, real NATS JetStream and real Postgres:
 * a command is applied exactly once however often it is delivered, and a crash half-way loses nothing.
 */
describe('durable, idempotent commands', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let sql: pg.Client;

  const createCommand = (name: string) =>
    commandEnvelope(Subjects.registryAuth.create, { name, username: 'u', passwordSealed: 'v1.k1.aa.bb.cc' });

  const count = async (query: string, value: string): Promise<number> =>
    Number((await sql.query<{ count: string }>(query, [value])).rows[0].count);
  const rows = (name: string) =>
    count('SELECT count(*) FROM pod_lifecycle.registry_auths WHERE name = $1', name);
  const processed = (commandId: string) =>
    count('SELECT count(*) FROM pod_lifecycle.processed_commands WHERE command_id = $1', commandId);

  beforeAll(async () => {
    db = await createTestDatabase('commands', { apps: ['pod-lifecycle'] });
    system = await startApps({
      apps: ['pod-lifecycle'],
      databaseUrl: db.url,
      env: { COMMAND_ACK_WAIT_MS: '2000' },
    });
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  });

  afterAll(async () => {
    await system?.stop();
    await sql?.end();
    await closeBus();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('applies a command delivered twice once, and answers both deliveries the same', async () => {
    const envelope = createCommand('twice');
    const first = await sendCommand(system.natsPrefix, envelope);
    expect(first).toEqual({ ok: true, value: { id: expect.any(String), name: 'twice' } });

    // JetStream de-duplicates the same Nats-Msg-Id within its window; past it (or in a replay) the owner sees the
    // command again and must answer from its record.
    const again = waitOutcome(system.natsPrefix, envelope.commandId);
    await publishCommand(system.natsPrefix, envelope, `${envelope.commandId}-redelivered`);
    expect(await again).toEqual(first);
    expect(await rows('twice')).toBe(1);
    expect(await processed(envelope.commandId)).toBe(1);

    const asked = await request(system.natsPrefix, 'registry-auth.qry.command-outcome', {
      commandId: envelope.commandId,
    });
    expect(asked).toEqual({ ok: true, value: first });
  });

  it('records a refusal as the answer: the same command gets the same error again, and nothing is written', async () => {
    const original = await sendCommand(system.natsPrefix, createCommand('dup'));
    expect(original.ok).toBe(true);
    const duplicate = createCommand('dup');
    const refused = await sendCommand(system.natsPrefix, duplicate);
    expect(refused).toEqual({
      ok: false,
      error: { code: 'CONFLICT', message: expect.stringContaining('dup') },
    });
    const again = waitOutcome(system.natsPrefix, duplicate.commandId);
    await publishCommand(system.natsPrefix, duplicate, `${duplicate.commandId}-redelivered`);
    expect(await again).toEqual(refused);
    expect(await rows('dup')).toBe(1);
  });

  it('answers an invalid payload with VALIDATION_FAILED naming the property, whatever transport brought it', async () => {
    const outcome = await sendCommand(
      system.natsPrefix,
      commandEnvelope(Subjects.registryAuth.create, {
        name: 'x',
        username: 'u',
        passwordSealed: 'plain',
        extra: 1,
      }),
    );
    expect(outcome.ok).toBe(false);
    const { error } = outcome as Extract<CommandOutcome, { ok: false }>;
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.errors).toEqual(
      expect.arrayContaining([expect.stringContaining('extra'), expect.stringContaining('passwordSealed')]),
    );
  });

  it.each([
    ['before commit', 'crash-before-commit', 0],
    ['after commit, before the ack', 'crash-after-commit', 1],
  ])(
    'loses nothing when the owner is killed %s: after a restart the command is applied exactly once',
    async (_label, stage, rowsAfterCrash) => {
      const envelope = createCommand(`crash-${stage}`);
      await system.restart('pod-lifecycle', { FAULT_INJECT: `${stage}:${Subjects.registryAuth.create}` });
      await publishCommand(system.natsPrefix, envelope);
      const exit = await system.waitForExit('pod-lifecycle');
      expect(exit.signal).toBe('SIGKILL');
      expect(await rows(envelope.payload.name)).toBe(rowsAfterCrash);

      const outcome = waitOutcome(system.natsPrefix, envelope.commandId, 30_000);
      await system.restart('pod-lifecycle', { FAULT_INJECT: undefined });
      const answered = await outcome;
      expect(answered).toEqual({ ok: true, value: { id: expect.any(String), name: envelope.payload.name } });
      expect(await rows(envelope.payload.name)).toBe(1);
      expect(await processed(envelope.commandId)).toBe(1);
    },
  );
});
