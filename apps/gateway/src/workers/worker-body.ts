import { DomainError, ErrorCode } from '@app/contracts';

/** A job-done body as the stock workers send it (compatibility.md §2). */
export interface DoneBody {
  hasOutput: boolean;
  output?: unknown;
  error?: string;
  progress: boolean;
  stopPod: boolean;
}

/** The body as JSON, whatever content type brought it (the parsers leave a string, an object or nothing). */
export function jsonBody(body: unknown): Record<string, unknown> {
  let value = body;
  if (Buffer.isBuffer(value)) value = value.toString('utf8');
  if (typeof value === 'string') {
    if (!value.trim()) return {};
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      throw new DomainError(ErrorCode.BadRequest, 'the body is not JSON');
    }
  }
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new DomainError(ErrorCode.BadRequest, 'the body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

/**
 * `{output}` success; `{output?, error}` the handler reported an error (FAILED, output kept); `{error: "<json>"}`
 * the handler raised; `{status: "IN_PROGRESS", output}` a progress update; `stopPod: true` may come with any.
 */
export function parseDoneBody(body: unknown): DoneBody {
  const json = jsonBody(body);
  const hasOutput = Object.prototype.hasOwnProperty.call(json, 'output');
  const rawError = json.error;
  const error =
    rawError === undefined || rawError === null
      ? undefined
      : typeof rawError === 'string'
        ? rawError
        : JSON.stringify(rawError);
  return {
    hasOutput,
    ...(hasOutput ? { output: json.output } : {}),
    ...(error !== undefined ? { error } : {}),
    progress: json.status === 'IN_PROGRESS' && error === undefined,
    stopPod: json.stopPod === true || json.stopPod === 'true',
  };
}

/** `?job_id=a,b` (the jobs a worker is running, in its ping). */
export function jobIdList(raw: unknown): string[] {
  const values = Array.isArray(raw) ? raw : [raw];
  return values
    .flatMap((v) => (typeof v === 'string' ? v.split(',') : []))
    .map((v) => v.trim())
    .filter(Boolean);
}
