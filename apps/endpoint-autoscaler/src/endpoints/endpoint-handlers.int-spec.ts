import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects, type EndpointView } from '@app/contracts';
import { EndpointCommands, findTemplate } from '../../../../test/support/endpoint-autoscaler-commands.js';
import {
  ALICE,
  BOB,
  type HandlerHarness,
  type InProcessQueries,
} from '../../../../test/support/handler-harness.js';

/**
 * endpoint-autoscaler's endpoint commands over its real schema (its migrations) and an in-process bus, with
 * pod-lifecycle's and the scheduler's answers (a template, a volume, the data centers, the spend status) standing
 * in for those apps: the rules the save command checks itself, whichever surface sent it.
 */

let commands: EndpointCommands;
let harness: HandlerHarness;
let queries: InProcessQueries;

beforeAll(async () => {
  commands = await EndpointCommands.start('endpoint_handlers');
  ({ harness, queries } = commands);
});

afterAll(async () => {
  await commands?.stop();
});

const create = (fields: Record<string, unknown> = {}): Promise<EndpointView> => commands.create(fields);

describe('saving an endpoint', () => {
  it('creates an endpoint with its defaults, and emits endpoint.evt.saved without the sealed key', async () => {
    const endpoint = await create({ workersMax: 2 });
    expect(endpoint).toMatchObject({
      name: 'inference',
      templateId: 'tpl-worker',
      workersMin: 0,
      workersMax: 2,
    });
    const saved = (await harness.events(Subjects.endpoint.saved)).at(-1)?.payload;
    expect(saved).toMatchObject({ created: true, endpoint: { id: endpoint.id } });
    expect(JSON.stringify(saved)).not.toContain('aiKeySealed');
  });

  it('refuses a template that is not serverless (422), from any surface or a replay', async () => {
    expect(await harness.refusal(() => create({ templateId: 'tpl-pod' }))).toMatchObject({
      wrote: [],
      code: ErrorCode.ValidationFailed,
      errors: [expect.stringContaining('templateId: template tpl-pod is not a serverless template')],
    });
  });

  it('refuses an unknown template (404)', async () => {
    expect(await harness.refusal(() => create({ templateId: 'tpl-missing' }))).toMatchObject({
      wrote: [],
      code: ErrorCode.NotFound,
    });
  });

  it("takes a network volume in one of the endpoint's regions, and refuses one outside them (422)", async () => {
    await expect(create({ networkVolumeId: 'vol-ro', locations: ['RO'] })).resolves.toMatchObject({
      networkVolumeId: 'vol-ro',
    });
    expect(
      await harness.refusal(() => create({ networkVolumeId: 'vol-ro', locations: ['US'] })),
    ).toMatchObject({
      wrote: [],
      code: ErrorCode.ValidationFailed,
      errors: [expect.stringContaining('outside the endpoint')],
    });
  });

  it('refuses to save, for good, when pod-lifecycle does not answer about the template (503 DEPENDENCY_UNAVAILABLE)', async () => {
    queries.forget(Subjects.template.get);
    try {
      expect(await harness.refusal(() => create())).toMatchObject({
        wrote: [],
        code: ErrorCode.DependencyUnavailable,
      });
    } finally {
      queries.answer(Subjects.template.get, findTemplate);
    }
  });

  it('keeps the workers’ priority (normal by default): a modify without one keeps it, another value is refused', async () => {
    expect(await create()).toMatchObject({ priority: 'normal' });
    const endpoint = await create({ priority: 'high' });
    expect(endpoint).toMatchObject({ priority: 'high' });
    const stored = async () =>
      (
        await harness.dataSource.query<{ priority: number }[]>(
          'SELECT priority FROM endpoint_autoscaler.endpoints WHERE id = $1',
          [endpoint.id],
        )
      )[0].priority;
    expect(await stored()).toBe(2);
    const modify = { id: endpoint.id, name: 'renamed', templateId: 'tpl-worker', gpuIds: ['AMPERE_16'] };
    await expect(harness.send(Subjects.endpoint.save, modify)).resolves.toMatchObject({ priority: 'high' });
    await expect(harness.send(Subjects.endpoint.save, { ...modify, priority: 'low' })).resolves.toMatchObject(
      {
        priority: 'low',
        version: 3,
      },
    );
    expect(await stored()).toBe(0);
    expect(await harness.refusal(() => create({ priority: 'urgent' }))).toMatchObject({
      wrote: [],
      code: ErrorCode.ValidationFailed,
    });
  });

  it("modifies the actor's endpoint, and refuses another user's (403)", async () => {
    const endpoint = await create();
    const modify = { id: endpoint.id, name: 'renamed', templateId: 'tpl-worker', gpuIds: ['ADA_24'] };
    await expect(harness.send(Subjects.endpoint.save, modify)).resolves.toMatchObject({ name: 'renamed' });
    expect(
      await harness.refusal(() => harness.send(Subjects.endpoint.save, modify, { actor: BOB })),
    ).toMatchObject({ wrote: [], code: ErrorCode.Forbidden });
  });
});

describe('deleting an endpoint', () => {
  it('deletes an endpoint without workers, and refuses one that may still have some (INVALID_STATE)', async () => {
    const busy = await create({ workersMax: 3 });
    expect(
      await harness.refusal(() => harness.send(Subjects.endpoint.delete, { id: busy.id })),
    ).toMatchObject({ wrote: [], code: ErrorCode.InvalidState });
    const idle = await create({ workersMax: 0 });
    await harness.send(Subjects.endpoint.delete, { id: idle.id });
    const deleted = (await harness.events(Subjects.endpoint.deleted)).at(-1)?.payload;
    expect(deleted).toEqual({ id: idle.id, ownerId: ALICE.userId });
  });
});

describe("removing a deleted endpoint's record", () => {
  const row = async (id: string): Promise<number> =>
    (
      await harness.dataSource.query<{ id: string }[]>(
        'SELECT id FROM endpoint_autoscaler.endpoints WHERE id = $1',
        [id],
      )
    ).length;

  it('removes the record of a deleted endpoint (what the control loop asks once its workers are gone)', async () => {
    const endpoint = await create({ workersMax: 0 });
    await harness.send(Subjects.endpoint.delete, { id: endpoint.id });
    expect(await row(endpoint.id)).toBe(1);
    const { wrote } = await harness.wrote(() => harness.send(Subjects.endpoint.remove, { id: endpoint.id }));
    expect(wrote).toEqual(['endpoints']);
    expect(await row(endpoint.id)).toBe(0);
  });

  it('refuses a live endpoint (INVALID_STATE) and an unknown one (404), writing nothing', async () => {
    const live = await create({ workersMax: 0 });
    expect(
      await harness.refusal(() => harness.send(Subjects.endpoint.remove, { id: live.id })),
    ).toMatchObject({ wrote: [], code: ErrorCode.InvalidState });
    expect(await row(live.id)).toBe(1);
    expect(
      await harness.refusal(() => harness.send(Subjects.endpoint.remove, { id: 'ep-missing' })),
    ).toMatchObject({ wrote: [], code: ErrorCode.NotFound });
  });
});
