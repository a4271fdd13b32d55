import { Injectable } from '@nestjs/common';
import {
  headers as natsHeaders,
  RequestError,
  TimeoutError,
  type Msg,
  type MsgHdrs,
} from '@nats-io/transport-node';
import {
  DomainError,
  DomainOwner,
  ErrorCode,
  Headers,
  domainOf,
  type Actor,
  type CommandOutcome,
  type QueryEnvelope,
  type QueryPayload,
  type QueryResult,
  type QuerySubject,
} from '@app/contracts';
import { BaseConfig } from '@app/config';
import { requestContext } from '@app/observability';
import { NatsClient } from './nats-client.js';
import { okValueJson } from './query-answer.js';

declare const JSON_OF: unique symbol;

/** The UTF-8 JSON of a `T` as its owner serialized it (QueryBus.queryJson). */
export type QueryJson<T> = Uint8Array & { readonly [JSON_OF]: T };

/** Request-reply queries to the owning app, with a timeout and a clear error when the owner does not answer. */
@Injectable()
export class QueryBus {
  constructor(
    private readonly nats: NatsClient,
    private readonly config: BaseConfig,
  ) {}

  async query<S extends QuerySubject>(
    subject: S,
    payload: QueryPayload<S>,
    actor: Actor,
    options: { timeoutMs?: number } = {},
  ): Promise<QueryResult<S>> {
    const outcome = await this.raw<CommandOutcome>(subject, payload, actor, true, options.timeoutMs);
    if (outcome.ok) return outcome.value as QueryResult<S>;
    throw DomainError.fromPayload(outcome.error);
  }

  /**
   * The value's JSON as the owner serialized it, not parsed, with the reply's headers (a `QueryAnswer`'s: a page's
   * size and cursor): for a caller that passes the JSON on as it is (ADR 46). A refusal throws its DomainError.
   */
  async queryJson<S extends QuerySubject>(
    subject: S,
    payload: QueryPayload<S>,
    actor: Actor,
  ): Promise<{ json: QueryJson<QueryResult<S>>; header: (name: string) => string | undefined }> {
    const reply = await this.request(
      subject,
      payload,
      actor,
      this.config.BUS_REQUEST_TIMEOUT_MS,
      (msg) => msg,
    );
    const json = okValueJson(reply.data);
    if (!json) {
      const outcome = reply.json<CommandOutcome>();
      throw outcome.ok
        ? new DomainError(ErrorCode.Internal, `${subject} answered a value that is not JSON text`)
        : DomainError.fromPayload(outcome.error);
    }
    return {
      json: json as QueryJson<QueryResult<S>>,
      header: (name) => reply.headers?.get(name) || undefined,
    };
  }

  /** A request on any query subject; `wrapped` says whether the reply is an outcome ({ok, value|error}). */
  async raw<T>(
    subject: string,
    payload: unknown,
    actor: Actor,
    wrapped = false,
    timeoutMs?: number,
  ): Promise<T> {
    return this.request(subject, payload, actor, timeoutMs ?? this.config.BUS_REQUEST_TIMEOUT_MS, (reply) => {
      const body = reply.json<CommandOutcome>();
      if (wrapped) return body as T;
      if (!body.ok) throw DomainError.fromPayload(body.error);
      return body.value as T;
    });
  }

  /** One request and its reply read by `read`; an owner that does not answer is OWNER_UNAVAILABLE. */
  private async request<T>(
    subject: string,
    payload: unknown,
    actor: Actor,
    timeout: number,
    read: (reply: Msg) => T,
  ): Promise<T> {
    const envelope: QueryEnvelope = { actor, correlationId: requestContext.correlationId(), payload };
    const h: MsgHdrs = natsHeaders();
    h.set(Headers.CorrelationId, envelope.correlationId);
    try {
      return read(await this.ask(this.nats.subject(subject), JSON.stringify(envelope), h, timeout));
    } catch (error) {
      if (error instanceof DomainError) throw error;
      const owner = DomainOwner[domainOf(subject)];
      throw new DomainError(
        ErrorCode.OwnerUnavailable,
        `${owner} did not answer ${subject} within ${timeout} ms (${(error as Error).message})`,
      );
    }
  }

  /**
   * One request within `timeoutMs`, asked again when it can have been lost: the first try gets half the time, so
   * a request taken by a replica that died with it (a timeout) goes to another replica while the caller still
   * waits; "no responders" (the owner's replicas are all restarting) is asked again a moment later. Queries only
   * read, so asking twice is harmless.
   */
  private async ask(subject: string, data: string, headers: MsgHdrs, timeoutMs: number): Promise<Msg> {
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 1; ; attempt++) {
      const remaining = deadline - Date.now();
      const timeout = attempt === 1 ? Math.max(1, Math.floor(timeoutMs / 2)) : remaining;
      try {
        return await this.nats.nc.request(subject, data, { timeout, headers });
      } catch (error) {
        const noResponders = error instanceof RequestError && error.isNoResponders();
        const retry = noResponders || error instanceof TimeoutError;
        const pause = noResponders ? Math.min(50 * 2 ** attempt, 1000) : 0;
        if (!retry || deadline - Date.now() <= pause + 10) throw error;
        if (pause) await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }
}
