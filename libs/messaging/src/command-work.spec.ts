import { describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects, type CommandEnvelope, type ErrorPayload } from '@app/contracts';
import { CommandWork } from './command-work.js';
import { commandIdentity, type MessageIdentity } from './applied-message.js';

/** What CommandWork.of touches for a replayed refusal: the handler (never run) and recordFailure. */
function workWith(recorded: ErrorPayload[]): CommandWork {
  const registry = {
    commands: new Map([
      [
        Subjects.endpoint.save,
        () => {
          throw new Error('the handler must not run');
        },
      ],
    ]),
  };
  const processor = {
    recordFailure: (_identity: MessageIdentity, error: ErrorPayload) => {
      recorded.push(error);
      return Promise.resolve({ outcome: { ok: false, error }, duplicate: false, events: [] });
    },
  };
  return new CommandWork(registry as never, processor as never, { app: 'endpoint-autoscaler' } as never);
}

describe('CommandWork.of, given a recorded DEPENDENCY_UNAVAILABLE refusal', () => {
  const envelope: CommandEnvelope = {
    commandId: 'c1',
    issuedAt: '2026-11-24T12:00:00.000Z',
    actor: { userId: 'u1', kind: 'user' },
    correlationId: 'c1',
    subject: Subjects.endpoint.save,
    payload: { name: 'e' },
  };
  const refused = { code: ErrorCode.DependencyUnavailable, message: 'the endpoint cannot be checked now' };

  it('records that refusal as the outcome without running the handler (a rebuild, ADR 28)', async () => {
    const recorded: ErrorPayload[] = [];
    const work = await workWith(recorded).of(commandIdentity(envelope.subject, envelope), envelope, {
      refused,
    });
    expect(work).toEqual({ outcome: { ok: false, error: refused }, duplicate: false, events: [] });
    expect(recorded).toEqual([refused]);
  });

  it('runs the handler as live when the decision is not such a refusal', async () => {
    const work = await workWith([]).of(commandIdentity(envelope.subject, envelope), envelope, {
      refused: { code: ErrorCode.NotFound, message: 'x' },
    });
    // The payload is validated first (an endpoint save needs more than a name): the handler's path, not a refusal.
    expect(work).toMatchObject({ outcome: { ok: false, error: { code: ErrorCode.ValidationFailed } } });
  });
});
