import { type DynamicModule, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { BaseConfig } from '@app/config';
import { CommandBus } from './command-bus.js';
import { CommandWork } from './command-work.js';
import { DeliveryApplier } from './delivery-applier.js';
import { DurableConsumers } from './durable-consumers.service.js';
import { FaultInjector } from './fault-injector.js';
import { HandlerRegistry } from './handler-registry.js';
import { MessageProcessor } from './message-processor.js';
import { MESSAGING_OPTIONS, type MessagingOptions } from './messaging.options.js';
import { NatsClient, natsAuth } from './nats-client.js';
import { OutboxRelay } from './outbox-relay.service.js';
import { QueryBus } from './query-bus.js';
import { QueryServer } from './query-server.service.js';
import { ReplayFeed } from './replay-feed.service.js';

/** Drains the NATS connection last, after consumers and subscriptions have stopped. */
@Injectable()
class NatsLifecycle implements OnApplicationShutdown {
  constructor(@Inject(NatsClient) private readonly nats: NatsClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.nats.drain();
  }
}

@Module({})
export class MessagingModule {
  static forApp(options: MessagingOptions): DynamicModule {
    return {
      module: MessagingModule,
      global: true,
      imports: [DiscoveryModule],
      providers: [
        { provide: MESSAGING_OPTIONS, useValue: options },
        {
          provide: NatsClient,
          inject: [BaseConfig],
          useFactory: (config: BaseConfig) =>
            NatsClient.connect(
              config.NATS_URL,
              config.NATS_PREFIX,
              options.app,
              natsAuth(config),
              config.NATS_STREAM_REPLICAS,
            ),
        },
        NatsLifecycle,
        FaultInjector,
        HandlerRegistry,
        MessageProcessor,
        OutboxRelay,
        QueryBus,
        CommandBus,
        CommandWork,
        DeliveryApplier,
        DurableConsumers,
        QueryServer,
        ReplayFeed,
      ],
      exports: [NatsClient, CommandBus, QueryBus, MessageProcessor, OutboxRelay],
    };
  }
}
