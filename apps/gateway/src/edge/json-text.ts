import type { FastifyReply } from 'fastify';

declare const JSON_OF: unique symbol;

/**
 * JSON text that is the serialization of a `T`, written by code that writes what `JSON.stringify` would (a large
 * answer serialized page by page as it is read, say): a handler may answer it, typed as the body it stands for.
 */
export type JsonText<T> = string & { readonly [JSON_OF]: T };

/** `text` as the JSON of a `T`: the caller vouches that it is (a test compares it with `JSON.stringify`'s). */
export function jsonText<T>(text: string): JsonText<T> {
  return text as JsonText<T>;
}

/** Answers JSON text as is, with the content type Fastify gives the objects it serializes itself. */
export function sendJsonText<T>(reply: FastifyReply, text: JsonText<T>): JsonText<T> {
  void reply.type('application/json; charset=utf-8');
  return text;
}
