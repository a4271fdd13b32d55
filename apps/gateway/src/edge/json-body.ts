import type { FastifyReply } from 'fastify';

declare const JSON_OF: unique symbol;

/**
 * The UTF-8 JSON of a `T`, written by code that writes what `JSON.stringify` would (a large answer serialized page
 * by page as it is read, say): a handler may answer it, typed as the body it stands for. Bytes rather than a
 * string: a string of some MB lives in V8's large-object space until a full collection, bytes are freed with
 * their small handle (ADR 46: the gateway's peak memory).
 */
export type JsonBody<T> = Buffer & { readonly [JSON_OF]: T };

/** `bytes` as the JSON of a `T`: the caller vouches that it is (a test compares it with `JSON.stringify`'s). */
export function jsonBody<T>(bytes: Buffer): JsonBody<T> {
  return bytes as JsonBody<T>;
}

/** Answers JSON as is, with the content type Fastify gives the objects it serializes itself. */
export function sendJsonBody<T>(reply: FastifyReply, body: JsonBody<T>): JsonBody<T> {
  void reply.type('application/json; charset=utf-8');
  return body;
}
