import { ValidationPipe } from '@nestjs/common';
import { DomainError, ErrorCode, flattenValidationErrors } from '@app/contracts';

/** Unknown properties and failed constraints are 422 with one `errors` entry per failure. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) =>
      new DomainError(
        ErrorCode.ValidationFailed,
        'the request failed validation',
        flattenValidationErrors(errors),
      ),
  });
}
