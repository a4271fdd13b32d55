import type { FastifyReply } from 'fastify';

/** Aborted when the client goes away before the answer is sent (a long poll then stops waiting). */
export function abortOnClose(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
