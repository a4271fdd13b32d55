import { describe, expect, it } from '@jest/globals';
import { DomainError, ErrorCode, type PodView } from '@app/contracts';
import { createValidationPipe } from '../edge/validation.pipe.js';
import { toSaveCommand } from './endpoint.mapper.js';
import { EndpointInput } from './inputs/endpoint.input.js';
import {
  DeployCpuPodInput,
  PodFindAndDeployOnDemandInput,
  PodRentInterruptableInput,
} from './inputs/pod.input.js';
import { toCreatePod, toPodModel } from './pod.mapper.js';

const pipe = createValidationPipe();
const PRIORITY_REFUSAL = 'priority must be one of the following values: low, normal, high';

/** The input as the gateway's pipe hands it to a resolver (`metatype`: its input class). */
const valid = (metatype: new () => object, input: unknown) =>
  pipe.transform(input, { type: 'body', metatype, data: undefined });

async function errorsOf(metatype: new () => object, input: unknown): Promise<string[]> {
  try {
    await valid(metatype, input);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(ErrorCode.ValidationFailed);
    return (error as DomainError).toPayload().errors ?? [];
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

const gpuPod = { name: 'p', imageName: 'alpine:3', gpuTypeId: 'NVIDIA RTX A4000' };

describe('GraphQL pods: priority, and podRentInterruptable’s spot pods', () => {
  it('podFindAndDeployOnDemand and deployCpuPod take a priority and refuse another value', async () => {
    const cpuPod = { name: 'c', imageName: 'alpine:3', instanceId: 'cpu3c' };
    for (const [input, fields] of [
      [PodFindAndDeployOnDemandInput, gpuPod],
      [DeployCpuPodInput, cpuPod],
    ] as const) {
      await expect(valid(input, { ...fields, priority: 'high' })).resolves.toMatchObject({
        priority: 'high',
      });
      expect(await errorsOf(input, { ...fields, priority: 2 })).toEqual([PRIORITY_REFUSAL]);
    }
  });

  it('podRentInterruptable takes a positive bidPerGpu and refuses zero, a negative bid or none', async () => {
    await expect(valid(PodRentInterruptableInput, { ...gpuPod, bidPerGpu: 0.2 })).resolves.toMatchObject({
      bidPerGpu: 0.2,
    });
    for (const bidPerGpu of [0, -1]) {
      expect(await errorsOf(PodRentInterruptableInput, { ...gpuPod, bidPerGpu })).toEqual([
        'bidPerGpu must be a positive number',
      ]);
    }
    expect(await errorsOf(PodRentInterruptableInput, gpuPod)).toEqual([
      'bidPerGpu must be a number conforming to the specified constraints',
    ]);
  });

  it('carries the priority into the pod create command; the bid goes nowhere', () => {
    const rent = Object.assign(new PodRentInterruptableInput(), {
      ...gpuPod,
      priority: 'low',
      bidPerGpu: 0.3,
    });
    const command = toCreatePod(rent);
    expect(command).toMatchObject({ priority: 'low', vocabulary: 'graphql' });
    expect(command).not.toHaveProperty('bidPerGpu');
    expect(toCreatePod(Object.assign(new PodFindAndDeployOnDemandInput(), gpuPod))).not.toHaveProperty(
      'priority',
    );
  });

  it('shows them as RunPod’s podType (INTERRUPTABLE or RESERVED) and the priority', () => {
    const pod = { ports: [], portMappings: {}, env: {}, status: 'EXITED', machine: {} } as unknown as PodView;
    expect(toPodModel({ ...pod, priority: 'low', interruptible: true }, new Date())).toMatchObject({
      podType: 'INTERRUPTABLE',
      priority: 'low',
    });
    expect(toPodModel({ ...pod, priority: 'high', interruptible: false }, new Date())).toMatchObject({
      podType: 'RESERVED',
      priority: 'high',
    });
  });
});

describe('GraphQL saveEndpoint: the workers’ priority', () => {
  const fields = { name: 'e', templateId: 't', gpuIds: 'AMPERE_16' };

  it('takes it, refuses another value, and carries it into endpoint.cmd.save (null or absent: unchanged)', async () => {
    await expect(valid(EndpointInput, { ...fields, priority: 'high' })).resolves.toMatchObject({
      priority: 'high',
    });
    expect(await errorsOf(EndpointInput, { ...fields, priority: 'highest' })).toEqual([PRIORITY_REFUSAL]);
    const input = Object.assign(new EndpointInput(), fields);
    expect(toSaveCommand({ ...input, priority: 'low' })).toMatchObject({ priority: 'low' });
    expect(toSaveCommand({ ...input, priority: null })).not.toHaveProperty('priority');
    expect(toSaveCommand(input)).not.toHaveProperty('priority');
  });
});
