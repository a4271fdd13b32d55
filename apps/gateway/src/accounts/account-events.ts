import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import { Subjects, type AccountChangedEvent } from '@app/contracts';
import { NatsClient } from '@app/messaging';
import { PrincipalCache } from './principal-cache.js';

/**
 * Tells every gateway replica that a user or its keys changed, on core NATS, after the change committed. Best
 * effort by design: the database is the truth and the cache's TTL bounds a lost event. The gateway uses its
 * bus connection; the keys CLI connects for the command (without NATS it still changes the database and says
 * that the replicas will notice only after AUTH_CACHE_TTL_MS).
 */
@Injectable()
export class AccountEvents {
  private readonly logger = new Logger('account-events');

  // Named explicitly: the union type's metadata would be `Object`, and Nest would inject nothing.
  constructor(@Optional() @Inject(NatsClient) private readonly nats?: NatsClient | null) {}

  /** Whether the event reached the NATS server. */
  async changed(event: AccountChangedEvent): Promise<boolean> {
    if (!this.nats) return false;
    try {
      this.nats.nc.publish(this.nats.subject(Subjects.account.changed), JSON.stringify({ payload: event }));
      // The server has the event once the flush's ping is answered: a CLI may exit right after.
      await this.nats.nc.flush();
      return true;
    } catch (error) {
      this.logger.warn(`could not publish ${Subjects.account.changed}: ${(error as Error).message}`);
      return false;
    }
  }
}

/** Every gateway replica: drops the cached principals of a user the moment an `account.evt.changed` arrives. */
@Injectable()
export class AccountEventsListener implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('account-events');
  private subscription?: Subscription;

  constructor(
    private readonly nats: NatsClient,
    private readonly cache: PrincipalCache,
  ) {}

  onModuleInit(): void {
    this.subscription = this.nats.nc.subscribe(this.nats.subject(Subjects.account.changed), {
      callback: (error, message) => {
        if (error) return;
        try {
          // The shape of the other events on the bus: `{ payload }`.
          const event = message.json<{ payload?: AccountChangedEvent }>().payload;
          if (typeof event?.userId === 'string') this.cache.dropUser(event.userId);
          else this.cache.clear();
        } catch {
          // Unreadable: drop everything rather than keep what it may have been about.
          this.logger.warn(`unreadable ${Subjects.account.changed} event; dropping every cached principal`);
          this.cache.clear();
        }
      },
    });
  }

  beforeApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }
}
