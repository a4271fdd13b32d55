import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import { type AccountChangedEvent, type SessionChangedEvent, Subjects } from '@app/contracts';
import { NatsClient } from '@app/messaging';
import { SessionCache } from './session-cache.js';

/**
 * A session ended or switched account: every gateway replica is told on core NATS, as account-events.ts does for
 * keys. Best effort by design: the database is the truth, and SSO_SESSION_CACHE_MS bounds a replica that missed it.
 * Each replica also drops a user's sessions when `account.evt.changed` names the user (disabled, keys revoked),
 * so they are read again with the user's state.
 */
@Injectable()
export class SessionEvents implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('sso');
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly cache: SessionCache,
    @Optional() @Inject(NatsClient) private readonly nats?: NatsClient | null,
  ) {}

  /** Drops this replica's copy at once, then tells the others. */
  async changed(event: SessionChangedEvent): Promise<void> {
    this.cache.drop(event.sessionHash);
    if (!this.nats) return;
    try {
      this.nats.nc.publish(
        this.nats.subject(Subjects.account.sessionChanged),
        JSON.stringify({ payload: event }),
      );
      await this.nats.nc.flush();
    } catch (error) {
      this.logger.warn(
        `could not tell the replicas that a session of ${event.userId} ${event.reason}: ${(error as Error).message}; ` +
          'they notice within SSO_SESSION_CACHE_MS',
      );
    }
  }

  onModuleInit(): void {
    const nats = this.nats;
    if (!nats) return;
    this.subscriptions.push(
      nats.nc.subscribe(nats.subject(Subjects.account.sessionChanged), {
        callback: (error, message) => {
          if (error) return;
          try {
            const event = message.json<{ payload?: SessionChangedEvent }>().payload;
            if (typeof event?.sessionHash === 'string') this.cache.drop(event.sessionHash);
            else this.cache.clear();
          } catch {
            this.cache.clear();
          }
        },
      }),
      nats.nc.subscribe(nats.subject(Subjects.account.changed), {
        callback: (error, message) => {
          if (error) return;
          try {
            const event = message.json<{ payload?: AccountChangedEvent }>().payload;
            if (typeof event?.userId === 'string') this.cache.dropUser(event.userId);
            else this.cache.clear();
          } catch {
            this.cache.clear();
          }
        },
      }),
    );
  }

  beforeApplicationShutdown(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
  }
}
