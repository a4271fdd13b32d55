import { type DynamicModule, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyServerOptions } from 'fastify';
import type { AppName } from '@app/contracts';
import { type BaseConfig, ConfigError, loadConfig } from '@app/config';
import { createRootLogger, startupTasks } from '@app/observability';
import { correlationHook } from './correlation.hook.js';
import { boundAddress, closeMetricsServer, isLoopback, startMetricsServer } from './metrics-server.js';
import { PinoNestLogger } from './pino-nest-logger.js';

export interface BootstrapOptions<C extends BaseConfig> {
  app: AppName;
  configClass: new () => C;
  module: (config: C) => DynamicModule;
  /** Largest request body accepted by the HTTP server, in bytes (the gateway raises it for /runsync). */
  bodyLimit?: (config: C) => number;
  /** More options of the Fastify server (the gateway's router limits and its answers to malformed URLs). */
  fastifyOptions?: (config: C) => FastifyServerOptions;
  /** Last touches on the app before it listens (filters, pipes, parsers). */
  configure?: (app: NestFastifyApplication, config: C) => void | Promise<void>;
}

/** Reads the config or exits with one line naming the bad variable. */
export function loadConfigOrExit<C extends object>(configClass: new () => C): C {
  try {
    return loadConfig(configClass);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/**
 * Boots one app: config validated once, JSON logs, Fastify, listen; SIGTERM/SIGINT stop taking work, finish what
 * is in flight (HTTP requests, the message being handled), drain NATS and exit 0 within SHUTDOWN_GRACE_MS.
 * Start-up work that runs after listening (startupTasks: the consumers, the scheduler's fleet load) keeps /readyz
 * at 503 until it is done; if it fails the process exits 1, as a failed boot always did.
 */
export async function bootstrapApp<C extends BaseConfig>(
  options: BootstrapOptions<C>,
): Promise<NestFastifyApplication> {
  const config = loadConfigOrExit(options.configClass);
  const root = createRootLogger(options.app, config.LOG_LEVEL);
  const logger = new PinoNestLogger(root);
  const adapter = new FastifyAdapter({
    bodyLimit: options.bodyLimit?.(config) ?? 1024 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...options.fastifyOptions?.(config),
  });
  const app = await NestFactory.create<NestFastifyApplication>(options.module(config), adapter, {
    logger,
    abortOnError: false,
  });
  const log = new Logger('bootstrap');
  let stopping = false;
  startupTasks.onFailure((task, error) => {
    if (stopping) return; // a task cut short by the shutdown is not a failed boot
    log.error(`start-up failed (${task}): ${error.message}`);
    root.flush();
    process.exit(1);
  });
  app.getHttpAdapter().getInstance().addHook('onRequest', correlationHook);
  await options.configure?.(app, config);
  await app.listen(config.HTTP_PORT, config.HTTP_HOST);
  // A port taken by something else is the likely failure of a new listener: say which setting moves it.
  const metrics = await startMetricsServer(config.METRICS_PORT, config.METRICS_HOST).catch((error: Error) => {
    log.error(
      `cannot serve /metrics on ${config.METRICS_HOST}:${config.METRICS_PORT} (${error.message}); ` +
        'set METRICS_PORT (0: any free port) or METRICS_HOST',
    );
    root.flush();
    process.exit(1);
  });
  // What is really bound (scripts/start.mjs reads `http` and `metrics` from this line), not Nest's getUrl().
  const http = boundAddress(app.getHttpServer().address());
  const scrape = boundAddress(metrics.address());
  log.log({
    msg:
      `${options.app} listening on ${http}${isLoopback(http) ? ' (loopback only)' : ''}, ` +
      `metrics on ${scrape}/metrics${isLoopback(scrape) ? ' (loopback only)' : ''}`,
    http,
    metrics: scrape,
  });
  void startupTasks.settled().then(
    () => log.log(`${options.app} ready`),
    () => undefined,
  );

  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.log(`${signal}: finishing in-flight work (up to ${config.SHUTDOWN_GRACE_MS} ms)`);
    const deadline = setTimeout(() => {
      log.error('shutdown grace period over; exiting with work still in flight');
      process.exit(1);
    }, config.SHUTDOWN_GRACE_MS);
    deadline.unref();
    app
      .close()
      .then(() => closeMetricsServer(metrics))
      .then(() => {
        log.log('stopped cleanly');
        root.flush();
        process.exit(0);
      })
      .catch((error: Error) => {
        log.error(`shutdown failed: ${error.message}`);
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return app;
}
