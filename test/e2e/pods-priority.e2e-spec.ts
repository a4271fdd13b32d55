import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PodStatus, type PodV2View, type PodView } from '@app/contracts';
import type { RunningSystem } from '../support/system.js';
import type { TestDatabase } from '../support/test-database.js';
import { errorCode, graphqlClient, type Graphql } from './graphql.e2e-helpers.js';
import { startPodsSystem, stopPodsSystem } from './pods-system.e2e-helpers.js';
import { PlacementStandIn, expectProblem, getPod, waitForPod, type Call } from './pods.e2e-helpers.js';

const GPU = 'NVIDIA RTX A4000';
const PRIORITY_REFUSAL = 'priority must be one of the following values: low, normal, high';

interface GqlPod {
  id: string;
  podType: string;
  priority: string;
}

/**
 * A pod's priority and interruptible flag from each surface (/v1, /v2, GraphQL's on-demand and spot mutations)
 * to the scheduler's reservation (the stand-in records every `placement.cmd.reserve`) and back in every view;
 * refusals in each surface's own names.
 */
describe('priority and interruptible pods', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let placement: PlacementStandIn;
  let alice: Call;
  let gql: Graphql;

  const reservesOf = (podId: string) =>
    placement.reserves
      .filter((r) => r.podId === podId)
      .map(({ hostId, priority, interruptible }) => ({ hostId, priority, interruptible }));
  const gqlPod = async (podId: string) =>
    (await gql<{ pod: GqlPod }>(`query { pod(input: {podId: "${podId}"}) { id podType priority } }`)).body
      .data!.pod;

  beforeAll(async () => {
    let aliceKey: string;
    ({ db, system, placement, alice, aliceKey } = await startPodsSystem('pods_priority'));
    gql = graphqlClient(system, aliceKey);
  });

  afterAll(() => stopPodsSystem({ db, system, placement }));

  it('/v1: carried into the create’s reservation and the resume’s, shown on /v1, /v2 and GraphQL', async () => {
    const created = await alice<PodView>('POST', '/v1/pods', {
      name: 'v1-spot',
      imageName: 'alpine:3',
      gpuTypeId: GPU,
      priority: 'high',
      interruptible: true,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ priority: 'high', interruptible: true });
    const id = created.body.id;
    await waitForPod(alice, id, PodStatus.Running);
    expect((await alice('POST', `/v1/pods/${id}/stop`)).status).toBe(200);
    expect((await alice('POST', `/v1/pods/${id}/start`)).status).toBe(200);
    const hostId = (await getPod(alice, id)).machineId;
    expect(reservesOf(id)).toEqual([
      { hostId: undefined, priority: 'high', interruptible: true },
      { hostId, priority: 'high', interruptible: true },
    ]);
    expect(await getPod(alice, id)).toMatchObject({ priority: 'high', interruptible: true });
    const v2 = (await alice<PodV2View>('GET', `/v2/pods/${id}`)).body;
    expect(v2).toMatchObject({ priority: 'high', interruptible: true });
    expect(await gqlPod(id)).toEqual({ id, podType: 'INTERRUPTABLE', priority: 'high' });
  });

  it('/v1 and /v2: normal and not interruptible by default; other values refused (422) in the body’s names', async () => {
    const plain = await alice<PodV2View>('POST', '/v2/pods', {
      name: 'v2-plain',
      image: 'alpine:3',
      gpu: { id: GPU },
    });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ priority: 'normal', interruptible: false });
    expect(reservesOf(plain.body.id)).toEqual([
      { hostId: undefined, priority: 'normal', interruptible: false },
    ]);
    expect(await gqlPod(plain.body.id)).toMatchObject({ podType: 'RESERVED', priority: 'normal' });

    const low = await alice<PodV2View>('POST', '/v2/pods', {
      name: 'v2-low',
      image: 'alpine:3',
      gpu: { id: GPU },
      priority: 'low',
      interruptible: true,
    });
    expect(low.body).toMatchObject({ priority: 'low', interruptible: true });
    expect(reservesOf(low.body.id)).toEqual([{ hostId: undefined, priority: 'low', interruptible: true }]);

    const before = placement.reserves.length;
    const v1 = await alice('POST', '/v1/pods', {
      name: 'bad',
      imageName: 'alpine:3',
      gpuTypeId: GPU,
      priority: 'urgent',
      interruptible: 'yes',
    });
    expectProblem(v1, 422);
    expect(v1.body.errors).toEqual([PRIORITY_REFUSAL, 'interruptible must be a boolean value']);
    expect(v1.body.message).toEqual(expect.stringContaining(PRIORITY_REFUSAL));
    const v2 = await alice('POST', '/v2/pods', {
      name: 'bad',
      image: 'alpine:3',
      gpu: { id: GPU },
      priority: 1,
    });
    expectProblem(v2, 422);
    expect(v2.body.errors).toEqual([PRIORITY_REFUSAL]);
    expect(placement.reserves).toHaveLength(before);
  });

  it('GraphQL: podFindAndDeployOnDemand takes a priority; podRentInterruptable makes a spot pod, its bid checked', async () => {
    const input = `name: "gql", imageName: "alpine:3", gpuTypeId: "${GPU}", cloudType: ALL`;
    const onDemand = await gql<{ podFindAndDeployOnDemand: GqlPod }>(
      `mutation { podFindAndDeployOnDemand(input: { ${input}, priority: "high" }) { id podType priority } }`,
    );
    expect(onDemand.body.errors).toBeUndefined();
    const reserved = onDemand.body.data!.podFindAndDeployOnDemand;
    expect(reserved).toMatchObject({ podType: 'RESERVED', priority: 'high' });
    expect(reservesOf(reserved.id)).toEqual([{ hostId: undefined, priority: 'high', interruptible: false }]);

    // As the SDKs send it, with variables: RunPod's PodRentInterruptableInput, bidPerGpu required.
    const spot = await gql<{ podRentInterruptable: GqlPod }>(
      'mutation Rent($input: PodRentInterruptableInput!) { podRentInterruptable(input: $input) { id podType priority } }',
      { input: { name: 'gql-spot', imageName: 'alpine:3', gpuTypeId: GPU, gpuCount: 1, bidPerGpu: 0.2 } },
    );
    expect(spot.body.errors).toBeUndefined();
    const interruptible = spot.body.data!.podRentInterruptable;
    expect(interruptible).toMatchObject({ podType: 'INTERRUPTABLE', priority: 'normal' });
    expect(reservesOf(interruptible.id)).toEqual([
      { hostId: undefined, priority: 'normal', interruptible: true },
    ]);
    expect(await getPod(alice, interruptible.id)).toMatchObject({ interruptible: true, priority: 'normal' });

    const before = placement.reserves.length;
    for (const [args, message] of [
      [`${input}, bidPerGpu: 0`, 'bidPerGpu must be a positive number'],
      [`${input}, bidPerGpu: 0.2, priority: "urgent"`, PRIORITY_REFUSAL],
    ] as const) {
      const refused = await gql(`mutation { podRentInterruptable(input: { ${args} }) { id } }`);
      expect(errorCode(refused)).toBe('BAD_USER_INPUT');
      expect(refused.body.errors![0].message).toContain(message);
    }
    const noBid = await gql(`mutation { podRentInterruptable(input: { ${input} }) { id } }`);
    expect(noBid.body.errors![0].message).toMatch(/bidPerGpu/);
    expect(placement.reserves).toHaveLength(before);
  });
});
