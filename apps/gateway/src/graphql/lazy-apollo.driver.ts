import { ApolloServer } from '@apollo/server';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Logger } from '@nestjs/common';
import { fastifyApolloDrainPlugin, fastifyApolloHandler } from '@as-integrations/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { printSchema, type GraphQLSchema } from 'graphql';

/** `GET <path>/schema.graphql`: the schema as SDL, without a key (docs/api.md). */
export const SDL_SUFFIX = '/schema.graphql';

/** After listening, how long the schema waits before it is built without a request asking for it. */
export const GRAPHQL_WARM_UP_DELAY_MS = 1000;

type SchemaOptions = Parameters<ApolloDriver['generateSchema']>[0];

/**
 * The Apollo driver, with the code-first schema and the Apollo server built off the start path (docs/adr/0033):
 * building them was the largest piece of the gateway's start that no other app has, and only `/graphql` needs
 * them. The route is registered at boot as the driver registers it (same path, GET/POST/OPTIONS, before the app
 * listens); the schema and the server are built by the first GraphQL request, or GRAPHQL_WARM_UP_DELAY_MS after
 * listening (so they are usually ready before anyone asks, and do not compete with the first requests and
 * probes), whichever comes first, once; `<path>/schema.graphql` (the SDL) waits for them as a request does.
 * Everything else is ApolloDriver's: the options, the plugins, the context, the error formatting. A schema that cannot be built stops the gateway (SIGTERM, then exit 1), as a
 * failed boot did; the requests that were waiting for it get a 500.
 */
export class LazyApolloDriver extends ApolloDriver {
  private readonly lazyLogger = new Logger('GraphQLModule');
  private schemaOptions?: SchemaOptions;
  private handler?: Promise<RouteHandlerMethod>;
  private sdl?: string;
  private printed?: () => Promise<string>;
  private warmUp?: NodeJS.Timeout;
  private stopped = false;

  /** Remembers what the schema is built from; GraphQLModule's copy of the schema stays unset (nothing reads it). */
  override generateSchema(options: SchemaOptions): Promise<GraphQLSchema> {
    this.schemaOptions = options;
    return Promise.resolve(undefined as unknown as GraphQLSchema);
  }

  override registerFastify(options: ApolloDriverConfig): Promise<void> {
    const app = this.httpAdapterHost.httpAdapter.getInstance<FastifyInstance>();
    app.route({
      url: options.path!,
      method: ['GET', 'POST', 'OPTIONS'],
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const handler = await this.server(options, app);
        return handler.call(app, request, reply);
      },
    });
    this.printed = async () => {
      await this.server(options, app);
      return this.sdl ?? '';
    };
    // The interface's description, public like /v1/openapi.json: it builds the schema if no request has yet.
    app.route({
      url: `${options.path!}${SDL_SUFFIX}`,
      method: 'GET',
      handler: async (_request: FastifyRequest, reply: FastifyReply) =>
        reply.type('text/plain; charset=utf-8').send(await this.schemaSdl()),
    });
    app.server.once('listening', () => {
      this.warmUp = setTimeout(() => {
        this.server(options, app).catch((error: Error) => {
          if (this.stopped) return;
          this.lazyLogger.error(`cannot build the GraphQL schema: ${error.message}`);
          process.exitCode = 1;
          process.kill(process.pid, 'SIGTERM');
        });
      }, GRAPHQL_WARM_UP_DELAY_MS);
      this.warmUp.unref();
    });
    return Promise.resolve();
  }

  /** The schema as SDL (what `<path>/schema.graphql` answers), built first if no request has built it yet. */
  schemaSdl(): Promise<string> {
    if (!this.printed) return Promise.reject(new Error('the GraphQL route is not registered yet'));
    return this.printed();
  }

  /** A gateway stopping before the warm-up builds nothing more. */
  override async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.warmUp);
    await super.stop();
  }

  /** What ApolloDriver's registerFastify does before it adds the route, done once, when first needed. */
  private server(options: ApolloDriverConfig, app: FastifyInstance): Promise<RouteHandlerMethod> {
    this.handler ??= (async () => {
      const schema = await super.generateSchema(this.schemaOptions!);
      this.sdl = schema ? printSchema(schema) : '';
      const server = new ApolloServer({
        ...(options as object),
        schema,
        plugins: [...(options.plugins ?? []), fastifyApolloDrainPlugin(app)],
      } as ConstructorParameters<typeof ApolloServer>[0]);
      await server.start();
      this.apolloServer = server;
      return fastifyApolloHandler(server, {
        context: options.context as never,
      });
    })();
    return this.handler;
  }
}
