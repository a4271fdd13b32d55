import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DomainError, ErrorCode, Subjects, type EndpointView, type TemplateView } from '@app/contracts';
import { ALICE, BOB, HandlerHarness, InProcessQueries } from '../../../../test/support/handler-harness.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';
import { DeleteEndpointHandler } from './delete-endpoint/delete-endpoint.handler.js';
import { EndpointReferences } from './endpoint-references.js';
import { EndpointsRepository } from './endpoints.repository.js';
import { RemoveEndpointHandler } from './remove-endpoint/remove-endpoint.handler.js';
import { SaveEndpointHandler } from './save-endpoint/save-endpoint.handler.js';

/**
 * endpoint-autoscaler's endpoint commands over its real schema (its migrations) and an in-process bus, with
 * pod-lifecycle's and the scheduler's answers (a template, a volume, the data centers, the spend status) standing
 * in for those apps: the rules the save command checks itself, whichever surface sent it.
 */

let harness: HandlerHarness;
let queries: InProcessQueries;

function template(id: string, isServerless: boolean): TemplateView {
  return {
    id,
    name: id,
    imageName: 'worker:1',
    dockerArgs: '',
    env: {},
    ports: [],
    containerDiskInGb: 20,
    volumeMountPath: null,
    isServerless,
    containerRegistryAuthId: null,
    readme: '',
    userId: ALICE.userId,
    isPublic: false,
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

const TEMPLATES = new Map([
  ['tpl-worker', template('tpl-worker', true)],
  ['tpl-pod', template('tpl-pod', false)],
]);

function findTemplate({ id }: { id: string }): TemplateView {
  const found = TEMPLATES.get(id);
  if (!found) throw DomainError.notFound('template', id);
  return found;
}

beforeAll(async () => {
  harness = await HandlerHarness.start('endpoint_handlers', 'endpoint-autoscaler', DATA_SOURCE_SPEC);
  queries = new InProcessQueries()
    .answer(Subjects.template.get, findTemplate)
    .answer(Subjects.volume.get, ({ id }) => ({
      id,
      name: 'models',
      size: 50,
      dataCenterId: 'EU-RO-1',
      createdAt: '2026-01-01T00:00:00.000Z',
    }))
    .answer(Subjects.catalog.dataCenters, () => [
      { id: 'EU-RO-1', name: 'Romania 1', region: 'RO', gpuAvailability: [], cpuAvailability: [] },
      { id: 'US-TX-3', name: 'Texas 3', region: 'US', gpuAvailability: [], cpuAvailability: [] },
    ])
    .answer(Subjects.spend.status, ({ at }, actor) => ({
      userId: actor.userId,
      operatorLimit: null,
      userLimit: null,
      monthlyLimit: null,
      month: '2026-03',
      startTime: '2026-03-01T00:00:00.000Z',
      endTime: at ?? '2026-03-01T12:00:00.000Z',
      spend: 0,
      reached: false,
    }));
  const endpoints = new EndpointsRepository(harness.dataSource);
  harness.register(
    new SaveEndpointHandler(endpoints, new EndpointReferences(queries.asBus()), queries.asBus()),
    new DeleteEndpointHandler(endpoints),
    new RemoveEndpointHandler(endpoints),
  );
});

afterAll(async () => {
  await harness?.stop();
});

const create = (fields: Record<string, unknown> = {}): Promise<EndpointView> =>
  harness.send(Subjects.endpoint.save, {
    name: 'inference',
    templateId: 'tpl-worker',
    gpuIds: ['ADA_24'],
    aiKeySealed: 'v1.test-key.c2VhbGVk',
    ...fields,
  });

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
