import { titleFor } from './http-status.js';

/** The interface's error body (`application/problem+json`). */
export interface Problem {
  title: string;
  status: number;
  detail: string;
  errors?: string[];
  /**
   * On /v1 routes only: `detail` with the `errors`, because v1 clients (runpodctl) read an error's `message`
   * (management-api.md §2).
   */
  message?: string;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function problem(status: number, detail: string, errors?: string[]): Problem {
  return errors?.length
    ? { title: titleFor(status), status, detail, errors }
    : { title: titleFor(status), status, detail };
}

/** The body of an error of `path`: the problem, plus `message` under /v1 for the clients that read that. */
export function problemBodyFor(path: string, body: Problem): Problem {
  if (!/^\/v1(\/|$|\?)/.test(path)) return body;
  const message = body.errors?.length ? `${body.detail}: ${body.errors.join('; ')}` : body.detail;
  return { ...body, message };
}
