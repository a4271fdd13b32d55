import { titleFor } from './http-status.js';

/** The interface's error body (`application/problem+json`). */
export interface Problem {
  title: string;
  status: number;
  detail: string;
  errors?: string[];
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function problem(status: number, detail: string, errors?: string[]): Problem {
  return errors?.length
    ? { title: titleFor(status), status, detail, errors }
    : { title: titleFor(status), status, detail };
}
