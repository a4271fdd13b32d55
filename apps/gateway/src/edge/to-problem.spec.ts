import { describe, expect, it } from '@jest/globals';
import { BadRequestException, HttpException, NotFoundException } from '@nestjs/common';
import { ALL_ERROR_CODES, DomainError, ErrorCode } from '@app/contracts';
import { httpStatusFor } from './http-status.js';
import { problemBodyFor } from './problem.js';
import { toProblem } from './to-problem.js';

describe('toProblem', () => {
  it('maps every shared error code to an HTTP status', () => {
    for (const code of ALL_ERROR_CODES) {
      expect(httpStatusFor(code)).toBeGreaterThanOrEqual(400);
    }
    expect(httpStatusFor(ErrorCode.ValidationFailed)).toBe(422);
    expect(httpStatusFor(ErrorCode.InUse)).toBe(400);
    expect(httpStatusFor(ErrorCode.InvalidState)).toBe(409);
    expect(httpStatusFor(ErrorCode.OwnerUnavailable)).toBe(503);
  });

  it('keeps the validation failures of a DomainError as `errors`', () => {
    const mapped = toProblem(
      new DomainError(ErrorCode.ValidationFailed, 'bad', ['a must be x', 'b must be y']),
    );
    expect(mapped.problem).toEqual({
      title: 'Unprocessable Entity',
      status: 422,
      detail: 'bad',
      errors: ['a must be x', 'b must be y'],
    });
  });

  it('names the route of an unknown path', () => {
    expect(toProblem(new NotFoundException('Cannot GET /nope')).problem.detail).toBe('no route GET /nope');
  });

  it('turns Fastify body errors into 400 and 413', () => {
    const invalid = Object.assign(new Error('Body is not valid JSON'), {
      code: 'FST_ERR_CTP_INVALID_JSON_BODY',
      statusCode: 400,
    });
    expect(toProblem(invalid).problem.status).toBe(400);
    expect(toProblem(invalid).problem.detail).toMatch(/^malformed JSON body/);
    const large = Object.assign(new Error('too large'), {
      code: 'FST_ERR_CTP_BODY_TOO_LARGE',
      statusCode: 413,
    });
    expect(toProblem(large).problem.status).toBe(413);
    // The route's limit, and what came when the request says: a client learns what to send instead.
    expect(
      toProblem(large, { bodyLimit: 10 * 1024 * 1024, contentLength: 12 * 1024 * 1024 }).problem.detail,
    ).toBe("request body is larger than this route's limit of 10 MB (10485760 bytes): received 12 MB");
    // As Nest's Fastify adapter hands it over: an HttpException with Fastify's error as its cause.
    const wrapped = new HttpException(large.message, 413, { cause: large });
    expect(toProblem(wrapped, { bodyLimit: 10 * 1024 * 1024 }).problem.detail).toBe(
      "request body is larger than this route's limit of 10 MB (10485760 bytes)",
    );
    expect(toProblem(large, { bodyLimit: 64 * 1024 }).problem.detail).toBe(
      "request body is larger than this route's limit of 64 KB (65536 bytes)",
    );
  });

  it('passes other HTTP exceptions through with their status', () => {
    expect(toProblem(new BadRequestException('nope')).problem).toEqual({
      title: 'Bad Request',
      status: 400,
      detail: 'nope',
    });
  });

  it('types the 501 of a feature not offered, so a client needs not parse its detail', () => {
    expect(
      toProblem(new DomainError(ErrorCode.NotAvailable, 'ECR delegations are not offered')).problem,
    ).toEqual({
      type: 'urn:gpucp:problem:not-offered-self-hosted',
      title: 'Not offered by a self-hosted deployment',
      status: 501,
      detail: 'ECR delegations are not offered',
    });
  });

  it('hides unexpected errors behind an error id', () => {
    const mapped = toProblem(new TypeError('x is undefined at foo.ts:12:3'));
    expect(mapped.problem.status).toBe(500);
    expect(mapped.errorId).toEqual(expect.any(String));
    expect(mapped.problem.detail).toContain(mapped.errorId);
    expect(mapped.problem.detail).not.toContain('foo.ts');
  });

  it('answers 503 with Retry-After, not 500, when the database cannot be reached', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const mapped = toProblem(refused);
    expect(mapped.problem).toMatchObject({ status: 503, title: 'Service Unavailable' });
    expect(mapped.headers).toEqual({ 'retry-after': '5' });
    expect(mapped.errorId).toBeUndefined();
  });
});

describe('problemBodyFor', () => {
  const body = {
    title: 'Unprocessable Entity',
    status: 422,
    detail: 'bad',
    errors: ['a must be x', 'b must be y'],
  };

  it('adds `message` on /v1 routes, for the clients that read it', () => {
    expect(problemBodyFor('/v1/pods', body)).toEqual({ ...body, message: 'bad: a must be x; b must be y' });
    expect(
      problemBodyFor('/v1/pods/p1/stop?x=1', { title: 'Not Found', status: 404, detail: 'no pod p1' }),
    ).toEqual({
      title: 'Not Found',
      status: 404,
      detail: 'no pod p1',
      message: 'no pod p1',
    });
  });

  it('leaves every other route with the problem alone', () => {
    expect(problemBodyFor('/v2/pods', body)).toBe(body);
    expect(problemBodyFor('/v1x', body)).toBe(body);
    expect(problemBodyFor('/graphql', body)).toBe(body);
  });
});
