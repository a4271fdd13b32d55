import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { COMMAND_HANDLER, EVENT_HANDLER, QUERY_HANDLER } from './handler.decorators.js';

export type BoundHandler = (context: never) => unknown;

/** Finds every @CommandHandler, @QueryHandler and @EventHandler method of the app's providers at boot. */
@Injectable()
export class HandlerRegistry implements OnModuleInit {
  readonly commands = new Map<string, BoundHandler>();
  readonly queries = new Map<string, BoundHandler>();
  readonly events = new Map<string, BoundHandler>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object' || wrapper.isNotMetatype === undefined) continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const method = instance[name] as (...args: unknown[]) => unknown;
        this.bind(this.commands, this.reflector.get<string>(COMMAND_HANDLER, method), instance, method, name);
        this.bind(this.queries, this.reflector.get<string>(QUERY_HANDLER, method), instance, method, name);
        this.bind(this.events, this.reflector.get<string>(EVENT_HANDLER, method), instance, method, name);
      }
    }
  }

  private bind(
    map: Map<string, BoundHandler>,
    subject: string | undefined,
    instance: object,
    method: (...args: unknown[]) => unknown,
    name: string,
  ): void {
    if (!subject) return;
    if (map.has(subject)) {
      throw new Error(`two handlers for ${subject} (the second is ${instance.constructor.name}.${name})`);
    }
    map.set(subject, method.bind(instance));
  }
}
