import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { COMMAND_FORMAT, Subjects } from '@app/contracts';
import { NatsClient, ensureStreams } from '@app/messaging';
import { commandEnvelope, publishCommand } from '../../../test/support/bus.js';
import { deleteStreams } from '../../../test/support/system.js';
import { testEnv } from '../../../test/support/test-env.js';
import { CommandLog, UnsupportedHistoryError } from './command-log.js';

/**
 * The command log over a real JetStream commands stream: a history with a command recorded before the oldest command
 * format this build replays is refused with a message naming that command, while the commands after it, selected
 * alone, still replay.
 */

const prefix = `${testEnv().natsPrefix}cl${randomBytes(3).toString('hex')}`;
let nats: NatsClient;
let log: CommandLog;

beforeAll(async () => {
  nats = await NatsClient.connect(testEnv().natsUrl, prefix, 'command-log-int-spec');
  await ensureStreams(nats);
  log = new CommandLog(nats);
  const payload = { endpointId: 'ep-1', workerId: 'worker-1' };
  // Recorded by a build before command formats: no `format` in its envelope.
  const { format: _format, ...old } = commandEnvelope(Subjects.worker.register, payload);
  await publishCommand(prefix, old);
  await publishCommand(prefix, commandEnvelope(Subjects.worker.register, payload));
});

afterAll(async () => {
  await nats?.drain();
  await deleteStreams(prefix);
});

async function readAll(fromSeq?: number): Promise<number[]> {
  const seqs: number[] = [];
  for await (const command of log.read(fromSeq === undefined ? {} : { fromSeq })) seqs.push(command.seq);
  return seqs;
}

describe('CommandLog and command formats', () => {
  it('refuses a history with a command older than the oldest replayable format, naming it', async () => {
    const attempt = readAll();
    await expect(attempt).rejects.toBeInstanceOf(UnsupportedHistoryError);
    await expect(readAll()).rejects.toThrow(
      /command 1 \(worker\.cmd\.register, .+\) was recorded in command format 1/,
    );
    await expect(log.get(1)).rejects.toBeInstanceOf(UnsupportedHistoryError);
  });

  it('replays the commands recorded in a supported format when selected alone', async () => {
    expect(await readAll(2)).toEqual([2]);
    expect((await log.get(2))?.envelope.format).toBe(COMMAND_FORMAT);
  });
});
