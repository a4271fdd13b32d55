import { Injectable } from '@nestjs/common';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
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
  ): Promise<QueryResult<S>> {
    const outcome = await this.raw<CommandOutcome>(subject, payload, actor, true);
    if (outcome.ok) return outcome.value as QueryResult<S>;
    throw DomainError.fromPayload(outcome.error);
  }

  /** A request on any query subject; `wrapped` says whether the reply is an outcome ({ok, value|error}). */
  async raw<T>(
    subject: string,
    payload: unknown,
    actor: Actor,
    wrapped = false,
    timeoutMs?: number,
  ): Promise<T> {
    const timeout = timeoutMs ?? this.config.BUS_REQUEST_TIMEOUT_MS;
    const envelope: QueryEnvelope = { actor, correlationId: requestContext.correlationId(), payload };
    const h: MsgHdrs = natsHeaders();
    h.set(Headers.CorrelationId, envelope.correlationId);
    try {
      const reply = await this.nats.nc.request(this.nats.subject(subject), JSON.stringify(envelope), {
        timeout,
        headers: h,
      });
      const body = reply.json<CommandOutcome>();
      if (wrapped) return body as T;
      if (!body.ok) throw DomainError.fromPayload(body.error);
      return body.value as T;
    } catch (error) {
      if (error instanceof DomainError) throw error;
      const owner = DomainOwner[domainOf(subject)];
      throw new DomainError(
        ErrorCode.OwnerUnavailable,
        `${owner} did not answer ${subject} within ${timeout} ms (${(error as Error).message})`,
      );
    }
  }
}
