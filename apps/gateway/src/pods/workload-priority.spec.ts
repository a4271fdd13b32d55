import { describe, expect, it } from '@jest/globals';
import {
  CreateEndpointV1Dto,
  CreateEndpointV2Dto,
  CreatePodDto,
  CreatePodV2Dto,
  DomainError,
  ErrorCode,
  UpdateEndpointV1Dto,
  UpdateEndpointV2Dto,
  toPodV2View,
  type EndpointView,
  type PodView,
} from '@app/contracts';
import { createValidationPipe } from '../edge/validation.pipe.js';
import { toSaveCommandV1 } from '../endpoints/endpoint-v1.view.js';
import { toSaveCommandV2 } from '../endpoints/endpoint-v2.view.js';
import { fromCreatePodV2 } from './pod-v2.view.js';

const pipe = createValidationPipe();
const PRIORITY_REFUSAL = 'priority must be one of the following values: low, normal, high';

/** The body as the gateway's pipe hands it to a controller (`metatype`: its DTO). */
const valid = (metatype: new () => object, body: unknown) =>
  pipe.transform(body, { type: 'body', metatype, data: undefined });

async function errorsOf(metatype: new () => object, body: unknown): Promise<string[]> {
  try {
    await valid(metatype, body);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(ErrorCode.ValidationFailed);
    return (error as DomainError).toPayload().errors ?? [];
  }
  throw new Error(`expected ${JSON.stringify(body)} to be refused`);
}

const v1Pod = { name: 'p', imageName: 'alpine:3', gpuTypeId: 'NVIDIA RTX A4000' };
const v2Pod = { name: 'p', image: 'alpine:3', gpu: { id: 'NVIDIA RTX A4000' } };

describe('a REST pod create: priority and interruptible', () => {
  it('takes them on /v1 and /v2, and refuses other values naming the field as the body does', async () => {
    await expect(
      valid(CreatePodDto, { ...v1Pod, priority: 'high', interruptible: true }),
    ).resolves.toMatchObject({
      priority: 'high',
      interruptible: true,
    });
    expect(await errorsOf(CreatePodDto, { ...v1Pod, priority: 'urgent', interruptible: 'yes' })).toEqual([
      PRIORITY_REFUSAL,
      'interruptible must be a boolean value',
    ]);
    await expect(
      valid(CreatePodV2Dto, { ...v2Pod, priority: 'low', interruptible: false }),
    ).resolves.toMatchObject({ priority: 'low', interruptible: false });
    expect(await errorsOf(CreatePodV2Dto, { ...v2Pod, priority: 'HIGH' })).toEqual([PRIORITY_REFUSAL]);
  });

  it('/v2 carries them into the one pod create command and shows them by name', () => {
    expect(fromCreatePodV2({ ...v2Pod, priority: 'high', interruptible: true })).toMatchObject({
      priority: 'high',
      interruptible: true,
      vocabulary: 'v2',
    });
    expect(fromCreatePodV2(v2Pod)).not.toHaveProperty('priority');
    expect(fromCreatePodV2(v2Pod)).not.toHaveProperty('interruptible');
    const pod = { ports: [], portMappings: {}, env: {}, status: 'EXITED', machine: {} } as unknown as PodView;
    expect(toPodV2View({ ...pod, priority: 'low', interruptible: true })).toMatchObject({
      priority: 'low',
      interruptible: true,
    });
  });
});

describe('a REST serverless endpoint: the workers’ priority', () => {
  const current = { id: 'ep1', name: 'e', templateId: 't', gpuIds: ['AMPERE_16'] } as unknown as EndpointView;

  it('takes it on /v1 and /v2 and refuses another value in the same words', async () => {
    const v1 = { name: 'e', templateId: 't', gpuTypeIds: ['AMPERE_16'] };
    const v2 = { name: 'e', type: 'QUEUE', templateId: 't', gpu: { pools: ['AMPERE_16'] } };
    for (const [dto, body] of [
      [CreateEndpointV1Dto, v1],
      [UpdateEndpointV1Dto, {}],
      [CreateEndpointV2Dto, v2],
      [UpdateEndpointV2Dto, {}],
    ] as const) {
      await expect(valid(dto, { ...body, priority: 'high' })).resolves.toMatchObject({ priority: 'high' });
      expect(await errorsOf(dto, { ...body, priority: 'highest' })).toEqual([PRIORITY_REFUSAL]);
    }
  });

  it('carries it into endpoint.cmd.save; an update without it keeps the endpoint’s', () => {
    expect(toSaveCommandV1({ priority: 'low' }, current, [])).toMatchObject({ id: 'ep1', priority: 'low' });
    expect(toSaveCommandV1({ name: 'e2' }, current, [])).not.toHaveProperty('priority');
    expect(toSaveCommandV2({ priority: 'high' }, current)).toMatchObject({ id: 'ep1', priority: 'high' });
    expect(toSaveCommandV2({ name: 'e2' }, current)).not.toHaveProperty('priority');
  });
});
