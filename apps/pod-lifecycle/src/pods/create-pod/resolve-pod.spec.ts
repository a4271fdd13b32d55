import { describe, expect, it } from '@jest/globals';
import { DomainError, type CreatePodCommand } from '@app/contracts';
import { TemplateEntity } from '../../templates/template.entity.js';
import { resolve } from './create-pod.handler.js';

const template = Object.assign(new TemplateEntity(), {
  id: 't1',
  ownerId: 'u1',
  name: 'tpl',
  image: 'repo/from-template:1',
  args: 'serve',
  env: { A: 'template', B: 'template' },
  ports: ['22/tcp'],
  containerDiskGb: 50,
  volumeMountPath: '/workspace',
  isServerless: false,
  registryAuthId: 'ra1',
  readme: '',
  createdAt: new Date(0),
});

const cmd = (fields: Partial<CreatePodCommand>): CreatePodCommand => ({ name: 'p', ...fields });

function errorsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error.errors ?? [];
  }
  return [];
}

describe('resolve (template + request)', () => {
  it('takes the template defaults and lets the request win', () => {
    const r = resolve(cmd({ gpuTypeId: 'A100', env: { B: 'request' }, containerDiskInGb: 10 }), template);
    expect(r).toMatchObject({
      image: 'repo/from-template:1',
      args: 'serve',
      env: { A: 'template', B: 'request' },
      ports: ['22/tcp'],
      containerDiskGb: 10,
      volumeMountPath: '/workspace',
      registryAuthId: 'ra1',
      gpuTypeIds: ['A100'],
      gpuCount: 1,
      cpuTypeId: null,
    });
  });

  it('makes a CPU pod without GPUs', () => {
    expect(resolve(cmd({ imageName: 'x', computeType: 'CPU', cpuFlavorId: 'cpu3c' }), null)).toMatchObject({
      gpuTypeIds: [],
      gpuCount: 0,
      cpuTypeId: 'cpu3c',
      containerDiskGb: 20,
    });
  });

  it('orders GPU types: gpuTypeId first, then gpuTypeIds, without repeats', () => {
    expect(resolve(cmd({ imageName: 'x', gpuTypeId: 'B', gpuTypeIds: ['A', 'B'] }), null).gpuTypeIds).toEqual(
      ['B', 'A'],
    );
  });

  it('refuses what validation alone cannot see (422 with one entry each)', () => {
    expect(errorsOf(() => resolve(cmd({}), null))).toEqual([
      'imageName must be given when no templateId is',
      'gpuTypeId (or gpuTypeIds) is required for a GPU pod; set computeType CPU for a CPU pod',
    ]);
    expect(
      errorsOf(() => resolve(cmd({ imageName: 'x', computeType: 'CPU', gpuTypeId: 'A', gpuCount: 2 }), null)),
    ).toEqual(['a CPU pod takes no gpuTypeId', 'a CPU pod takes no GPUs (gpuCount must be 0)']);
    expect(errorsOf(() => resolve(cmd({ imageName: 'x', gpuTypeId: 'A', gpuCount: 0 }), null))).toEqual([
      'gpuCount must be at least 1 for a GPU pod',
    ]);
  });

  it("names v2's fields for a v2 request (image, gpu.id, gpu.count), v1's for the others", () => {
    const v2 = { vocabulary: 'v2' as const };
    expect(errorsOf(() => resolve(cmd(v2), null))).toEqual([
      'image must be given when no templateId is',
      'gpu.id is required for a GPU pod; set cpu for a CPU pod',
    ]);
    // gpu and cpu both: the command asks for a CPU pod with a GPU type.
    expect(
      errorsOf(() =>
        resolve(
          cmd({ ...v2, imageName: 'x', computeType: 'CPU', cpuFlavorId: 'c', gpuTypeId: 'A', gpuCount: 2 }),
          null,
        ),
      ),
    ).toEqual(['a CPU pod takes no gpu.id', 'a CPU pod takes no GPUs (gpu.count must be 0)']);
    expect(errorsOf(() => resolve(cmd({ vocabulary: 'v1' }), null))[0]).toBe(
      'imageName must be given when no templateId is',
    );
  });
});
