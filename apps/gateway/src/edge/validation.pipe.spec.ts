import { describe, expect, it } from '@jest/globals';
import { DomainError, ErrorCode, RunJobDto } from '@app/contracts';
import { createValidationPipe } from './validation.pipe.js';

const pipe = createValidationPipe();
const asBody = { type: 'body' as const, metatype: RunJobDto, data: undefined };

async function refusal(body: unknown): Promise<DomainError> {
  try {
    await pipe.transform(body, asBody);
  } catch (error) {
    return error as DomainError;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be refused`);
}

describe('the gateway validation pipe, for a job input (OpaqueInBody)', () => {
  it('hands the controller the input itself, an object or an array, and an instance of the DTO', async () => {
    for (const input of [{ prompt: 'a', nested: [{ deep: { n: 1 } }] }, [1, [2, { three: 3 }]]]) {
      const dto = (await pipe.transform({ input, webhook: 'https://example.com/hook' }, asBody)) as RunJobDto;
      expect(dto).toBeInstanceOf(RunJobDto);
      expect(dto.input).toBe(input);
      expect(dto.webhook).toBe('https://example.com/hook');
    }
    for (const input of ['text', 0, false]) {
      expect(((await pipe.transform({ input }, asBody)) as RunJobDto).input).toBe(input);
    }
  });

  it('still refuses a missing or null input, and unknown properties beside it', async () => {
    for (const body of [{}, { input: null }]) {
      const error = await refusal(body);
      expect(error).toBeInstanceOf(DomainError);
      expect(error.code).toBe(ErrorCode.ValidationFailed);
      expect(error.toPayload().errors).toEqual(['input should not be null or undefined']);
    }
    const unknown = await refusal({ input: { a: 1 }, colour: 'blue' });
    expect(unknown.toPayload().errors).toEqual(['colour: property colour should not exist']);
  });
});
