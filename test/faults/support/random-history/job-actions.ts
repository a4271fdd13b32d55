import type { Action, ActionContext } from './resource-actions.js';
import type { HistoryEndpoint } from './history-world.js';

/** At most this many endpoints live at once; each has its own worker processes. */
const MAX_ENDPOINTS = 3;
const MAX_WORKERS = 2;

async function request(ctx: ActionContext, method: string, path: string, body?: unknown) {
  const reply = await ctx.hs.api<Record<string, unknown>>(method, path, body);
  ctx.world.note(reply.status);
  return reply;
}

function saveEndpoint(ctx: ActionContext, fields: string) {
  return ctx.hs.graphql<{ saveEndpoint: { id: string } }>(
    `mutation { saveEndpoint(input: { ${fields} }) { id } }`,
  );
}

/** A job's input: what the worker does with it (history-worker.mjs) and what the test does after submitting. */
function jobInput(ctx: ActionContext) {
  const kind = ctx.rng.weighted({ echo: 10, sleep: 3, fail: 2, stream: 2, cancel: 2, timeout: 1, crash: 1 });
  switch (kind) {
    case 'echo':
      return { kind, input: { n: ctx.rng.int(0, 1e6) } };
    case 'sleep':
      return { kind, input: { ms: ctx.rng.int(100, 800) } };
    case 'fail':
      return { kind, input: { fail: true } };
    case 'stream':
      return { kind, input: { stream: ctx.rng.int(1, 4) } };
    case 'cancel':
      return { kind, input: { ms: 3000 } };
    case 'timeout':
      return { kind, input: { ms: 4000 }, policy: { executionTimeout: 500 } };
    case 'crash':
      return { kind, input: { crash: true } };
  }
}

/** An edit of a live endpoint (new idle timeout and scaler value); refused while a dependency is down. */
export async function editEndpoint(
  ctx: ActionContext,
  endpoint: HistoryEndpoint | undefined = ctx.rng.pick(ctx.world.liveEndpoints()),
): Promise<void> {
  const { rng, world } = ctx;
  if (!endpoint) return;
  const saved = await saveEndpoint(
    ctx,
    `id: "${endpoint.id}", name: "${endpoint.name}", templateId: "${endpoint.templateId}", gpuIds: "AMPERE_80", workersMin: 0, workersMax: 0, idleTimeout: ${rng.int(1, 10)}, scalerValue: ${rng.int(1, 8)}`,
  );
  world.note(saved.errors?.length ? `graphql:${saved.errors[0].extensions?.code ?? 'error'}` : saved.status);
}

/** Serverless endpoints (GraphQL): created from a serverless template, edited, scaled to 0 and deleted. */
export const endpointActions: Record<string, Action> = {
  endpoint: async (ctx) => {
    const { world, rng, workers } = ctx;
    const live = world.liveEndpoints();
    const choice = live.length < 1 ? 'create' : rng.weighted({ create: 2, edit: 3, delete: 1 });
    if (choice === 'create' && live.length < MAX_ENDPOINTS) {
      const templateId = rng.pick(world.serverlessTemplates);
      if (!templateId) return;
      const name = ctx.name('endpoint');
      const saved = await saveEndpoint(
        ctx,
        `name: "${name}", templateId: "${templateId}", gpuIds: "AMPERE_80", workersMin: 0, workersMax: 0, idleTimeout: ${rng.int(1, 10)}`,
      );
      world.note(saved.status);
      const id = saved.data?.saveEndpoint.id;
      if (id) {
        world.endpoints.push({ id, name, templateId, deleting: false });
        await workers.start(id, rng.int(1, 3));
      }
      return;
    }
    const endpoint = rng.pick(live);
    if (!endpoint) return;
    if (choice === 'delete' && live.length > 1) {
      endpoint.deleting = true;
      await workers.stop(endpoint.id);
      const deleted = await ctx.hs.graphql(`mutation { deleteEndpoint(id: "${endpoint.id}") }`);
      world.note(deleted.status);
      return;
    }
    await editEndpoint(ctx, endpoint);
  },
};

/** Jobs through the endpoints' workers, and the workers themselves (started, killed mid-job). */
export const jobActions: Record<string, Action> = {
  job: async (ctx) => {
    const { world, rng } = ctx;
    const endpoint = rng.pick(world.liveEndpoints());
    if (!endpoint) return;
    const { kind, input, policy } = jobInput(ctx);
    if (rng.chance(0.05)) {
      const reply = await request(ctx, 'POST', `/v2/${endpoint.id}/runsync?wait=2000`, { input });
      const id = (reply.body as { id?: string } | undefined)?.id;
      if (id) world.addJob(endpoint.id, id);
      return;
    }
    const reply = await request(ctx, 'POST', `/v2/${endpoint.id}/run`, {
      input,
      ...(policy ? { policy } : {}),
    });
    const id = (reply.body as { id?: string } | undefined)?.id;
    if (reply.status !== 200 || !id) return;
    world.addJob(endpoint.id, id);
    if (kind === 'cancel') {
      await new Promise((resolve) => setTimeout(resolve, rng.int(0, 1500)));
      await request(ctx, 'POST', `/v2/${endpoint.id}/cancel/${id}`);
    }
  },
  jobFollowUp: async (ctx) => {
    const { world, rng } = ctx;
    const endpoint = rng.pick(world.liveEndpoints());
    const id = endpoint && rng.pick(world.jobs.get(endpoint.id) ?? []);
    if (!endpoint || !id) return;
    const choice = rng.weighted({ retry: 3, ttl: 2, cancel: 2, stream: 1, purge: 1 });
    if (choice === 'retry') await request(ctx, 'POST', `/v2/${endpoint.id}/retry/${id}`);
    else if (choice === 'ttl') {
      await request(ctx, 'GET', `/v2/${endpoint.id}/status/${id}?ttl=${rng.int(60, 600) * 1000}`);
    } else if (choice === 'cancel') await request(ctx, 'POST', `/v2/${endpoint.id}/cancel/${id}`);
    else if (choice === 'stream') await request(ctx, 'GET', `/v2/${endpoint.id}/stream/${id}`);
    else await request(ctx, 'POST', `/v2/${endpoint.id}/purge-queue`);
  },
  worker: async (ctx) => {
    const { world, rng, workers } = ctx;
    const endpoint = rng.pick(world.liveEndpoints());
    if (!endpoint) return;
    if (workers.count(endpoint.id) >= MAX_WORKERS || (workers.count(endpoint.id) > 0 && rng.chance(0.5))) {
      await workers.kill(endpoint.id, rng.int(0, 9));
    }
    if (workers.count(endpoint.id) < MAX_WORKERS) await workers.start(endpoint.id, rng.int(1, 3));
  },
};
