import { describe, expect, it } from '@jest/globals';
import { validatePlain } from '../common/validation.js';
import { CreatePodCommand } from './pod.commands.js';
import { CreatePodDto } from './pod.dto.js';

const sealed = 'v1.k1.AAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBB.CCCC';

describe('secretEnv of pod.cmd.create', () => {
  it('accepts sealed values with their context', () => {
    const result = validatePlain(CreatePodCommand, {
      name: 'w',
      secretEnv: { RUNPOD_AI_API_KEY: { sealed, context: 'ep-1' } },
    });
    expect(result.ok).toBe(true);
  });

  it.each([
    ['a plaintext value', { RUNPOD_AI_API_KEY: 'cpk_plain' }],
    ['a value that is not sealed', { RUNPOD_AI_API_KEY: { sealed: 'cpk_plain', context: 'ep-1' } }],
    ['no context', { RUNPOD_AI_API_KEY: { sealed } }],
    ['an extra field', { RUNPOD_AI_API_KEY: { sealed, context: 'ep-1', plain: 'x' } }],
    ['a bad name', { '1BAD': { sealed, context: 'ep-1' } }],
  ])('refuses %s', (_case, secretEnv) => {
    const result = validatePlain(CreatePodCommand, { name: 'w', secretEnv });
    expect(result.ok ? [] : result.errors).toEqual([expect.stringMatching(/^secretEnv must be/)]);
  });

  it('is not part of the REST body', () => {
    const result = validatePlain(CreatePodDto, { name: 'w', secretEnv: {} });
    expect(result.ok ? [] : result.errors).toEqual(['secretEnv: property secretEnv should not exist']);
  });
});
