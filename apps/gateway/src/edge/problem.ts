import { titleFor } from './http-status.js';

/** The interface's error body (`application/problem+json`). */
export interface Problem {
  /**
   * What kind of problem, as a URI (RFC 9457); absent means `about:blank`, the title then being the status's
   * phrase. Only the answer of a feature a self-hosted deployment does not offer has one (NOT_OFFERED_TYPE).
   */
  type?: string;
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

/**
 * The problem type of RunPod's features that a self-hosted deployment does not offer (ECR delegations, GitHub
 * builds, the Hub...): clients and scripts tell it from a fault by this URI, stable across versions.
 */
export const NOT_OFFERED_TYPE = 'urn:gpucp:problem:not-offered-self-hosted';
export const NOT_OFFERED_TITLE = 'Not offered by a self-hosted deployment';

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
