import { ErrorCode, isErrorCode } from './error-code.js';

/** The serialisable form of an error as it crosses the bus and as it is recorded with a processed command. */
export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  /** Individual validation failures, one per string. */
  errors?: string[];
}

/** An expected failure of a use case. Anything else that is thrown is a bug (INTERNAL). */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: string[],
  ) {
    super(message);
    this.name = 'DomainError';
  }

  toPayload(): ErrorPayload {
    return this.errors?.length
      ? { code: this.code, message: this.message, errors: this.errors }
      : { code: this.code, message: this.message };
  }

  static fromPayload(payload: ErrorPayload): DomainError {
    return new DomainError(payload.code, payload.message, payload.errors);
  }

  static isPayload(value: unknown): value is ErrorPayload {
    if (typeof value !== 'object' || value === null) return false;
    const v = value as Record<string, unknown>;
    return isErrorCode(v.code) && typeof v.message === 'string';
  }

  static notFound(what: string, id: string): DomainError {
    return new DomainError(ErrorCode.NotFound, `${what} ${id} does not exist`);
  }
}
