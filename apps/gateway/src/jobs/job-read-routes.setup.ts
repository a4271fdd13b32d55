import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { sendProblem } from '../edge/problem.filter.js';
import { JobReads } from './job-reads.js';

const KEY = 'gpucpJobRead';

/** The job reads served raw (JobReads), by the name of their JobReads method. */
export type JobRead = 'status' | 'statusSync';

/** `@RouteConfig(servedRaw('status'))`: the controller's route is answered by `JobReads.status` (main.ts). */
export function servedRaw(read: JobRead): Record<string, JobRead> {
  return { [KEY]: read };
}

/**
 * Answers the routes marked `servedRaw` with JobReads instead of Nest's handler (called from main.ts before the
 * app listens). The route itself stays Nest's: the same URL, the hooks and body limit of job-routes.setup.ts,
 * the controller method that the OpenAPI document is generated from and that serves the route where this is
 * not wired (an app built from AppModule alone). Only the handler Fastify calls is swapped, in its `onRoute`
 * hook (HEAD included, which Fastify derives from the GET): the guard, pipes, parameter decorators and filter
 * cost more than the whole read of a finished job (docs/adr/0033). Errors leave as the global ProblemFilter
 * sends them.
 */
export function configureJobReadRoutes(app: NestFastifyApplication): void {
  const reads = app.get(JobReads);
  const logger = new Logger('edge');
  const serve =
    (read: JobRead) =>
    // Not an async handler: it answers through `reply` when the read settles (Fastify reports an async handler
    // that resolves to undefined).
    (request: FastifyRequest, reply: FastifyReply): void => {
      const fail = (error: unknown) => sendProblem(reply, error, logger);
      let answer: ReturnType<JobReads[JobRead]>;
      try {
        // A read answered from cached answers comes back as a value, a refusal decided at once as a throw.
        answer = reads[read](request as Parameters<JobReads[JobRead]>[0], reply);
      } catch (error) {
        return fail(error);
      }
      if (answer instanceof Promise) answer.then((view) => void reply.send(view), fail);
      else void reply.send(answer);
    };
  const handlers: Record<JobRead, RouteOptions['handler']> = {
    status: serve('status'),
    statusSync: serve('statusSync'),
  };
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRoute', (route: RouteOptions) => {
      const read = (route.config as Record<string, JobRead | undefined> | undefined)?.[KEY];
      if (read) route.handler = handlers[read];
    });
}
