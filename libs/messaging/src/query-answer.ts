import type { MsgHdrs } from '@nats-io/transport-node';

/**
 * A query's value as JSON its handler serialized itself (built from parts it keeps serialized, say), with facts
 * about it in the reply's headers (a page's size and cursor): a caller that takes the value's JSON as it is
 * (QueryBus.queryJson) reads them there instead of parsing it, and passes the JSON on (the gateway's v2 pod list,
 * ADR 46). Any other caller gets the value, as from any handler.
 */
export class QueryAnswer<T> {
  private constructor(
    /** The value's JSON in UTF-8, as `JSON.stringify` writes it, in parts (joined once, in the reply). */
    readonly json: readonly Uint8Array[],
    readonly headers: Readonly<Record<string, string>>,
  ) {}

  /** `json` must be what `JSON.stringify` writes of a `T`, in UTF-8 (the handler's tests compare them). */
  static serialized<T>(
    json: readonly Uint8Array[],
    headers: Readonly<Record<string, string>>,
  ): QueryAnswer<T> {
    return new QueryAnswer<T>(json, headers);
  }

  /** The value itself, for whatever serializes the answer as an object (the handlers' test harness). */
  toJSON(): T {
    return JSON.parse(Buffer.concat(this.json).toString()) as T;
  }
}

/** What `JSON.stringify` writes of `{ ok: true, value }` around the value, as the query server writes outcomes. */
const OK_OPEN_BYTES = new TextEncoder().encode('{"ok":true,"value":');
const CLOSE_BYTES = new TextEncoder().encode('}');

/** The success outcome of an answer, as `JSON.stringify({ ok: true, value })` would write it, in UTF-8. */
export function okOutcomeBytes(answer: QueryAnswer<unknown>): Uint8Array {
  return Buffer.concat([OK_OPEN_BYTES, ...answer.json, CLOSE_BYTES]);
}

/** The answer's headers as NATS headers. */
export function answerHeaders(answer: QueryAnswer<unknown>, make: () => MsgHdrs): MsgHdrs {
  const headers = make();
  for (const [name, value] of Object.entries(answer.headers)) headers.set(name, value);
  return headers;
}

/**
 * The value's JSON inside a reply's bytes when the reply is a success (`{"ok":true,"value":<json>}`, as the query
 * server writes outcomes); null otherwise (a refusal, an error).
 */
export function okValueJson(data: Uint8Array): Uint8Array | null {
  if (data.length <= OK_OPEN_BYTES.length || data[data.length - 1] !== 0x7d) return null;
  for (let i = 0; i < OK_OPEN_BYTES.length; i++) if (data[i] !== OK_OPEN_BYTES[i]) return null;
  return data.subarray(OK_OPEN_BYTES.length, data.length - 1);
}
