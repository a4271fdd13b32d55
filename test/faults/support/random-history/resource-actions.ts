import { keysCli } from '../../../support/accounts.js';
import { sshPublicKey } from '../../../e2e/clusters-fixtures.js';
import type { HistorySystem } from './history-system.js';
import { A100, HISTORY_DC } from './history-system.js';
import type { HistoryWorkers } from './history-workers.js';
import { HistoryWorld } from './history-world.js';
import type { Rng } from './rng.js';

/** What an action gets: the system, what exists so far, the client's generator and the worker processes. */
export interface ActionContext {
  hs: HistorySystem;
  world: HistoryWorld;
  rng: Rng;
  workers: HistoryWorkers;
  /** A name unique within the history (`<kind>-<n>`). */
  name(kind: string): string;
}

export type Action = (ctx: ActionContext) => Promise<void>;

async function request(ctx: ActionContext, method: string, path: string, body?: unknown) {
  const reply = await ctx.hs.api<Record<string, unknown>>(method, path, body);
  ctx.world.note(reply.status);
  return reply;
}

const idOf = (body: unknown): string | undefined => (body as { id?: string } | undefined)?.id;

const ROLES = ['owner', 'admin', 'dev', 'billing', 'basic'] as const;

/**
 * Users, API keys, SSH keys and teams: the gateway's records. Users, keys, teams and members are `account.cmd.*`
 * commands (the keys CLI's recorded like the routes'); SSH keys are written directly and not rebuilt (ADR 11).
 */
export const accountActions: Record<string, Action> = {
  user: async (ctx) => {
    ctx.world.users += 1;
    const name = ctx.name('user');
    await keysCli(ctx.hs.db.url, ['user', 'create', name], ctx.hs.system.natsPrefix);
    ctx.world.userNames.push(name);
  },
  /** A team made, renamed or deleted; members added, given roles, removed; a member's key for it. */
  team: async (ctx) => {
    const { world, rng, hs } = ctx;
    const teams = [...world.teams.keys()];
    if (!teams.length || rng.chance(0.15)) {
      const made = await request(ctx, 'POST', '/v2/teams', { name: ctx.name('team') });
      const id = idOf(made.body);
      if (made.status === 201 && id) world.teams.set(id, []);
      return;
    }
    const teamId = rng.pick(teams)!;
    const members = world.teams.get(teamId)!;
    const member = members.length ? rng.pick(members) : undefined;
    const user = world.userNames.length ? rng.pick(world.userNames) : undefined;
    const path = `/v2/teams/${teamId}`;
    const draw = rng.int(0, 9);
    if (draw <= 3 && user) {
      const added = await request(ctx, 'POST', `${path}/members`, { user, role: rng.pick(ROLES) });
      const userId = (added.body as { userId?: string }).userId;
      if (added.status === 201 && userId) members.push(userId);
    } else if (draw <= 5 && member) {
      await request(ctx, 'PATCH', `${path}/members/${member}`, { role: rng.pick(ROLES) });
    } else if (draw <= 6 && member) {
      // The history's user when it is the pick: the last owner's leave is refused, a recorded refusal.
      const target = rng.chance(0.2) ? hs.user.userId : member;
      const removed = await request(ctx, 'DELETE', `${path}/members/${target}`);
      if (removed.status === 204) members.splice(members.indexOf(target), 1);
    } else if (draw <= 7 && member) {
      // A member's key for the team, issued by the keys CLI (refused when they left meanwhile).
      await keysCli(
        hs.db.url,
        ['key', 'create', member, '--team', teamId, '--json'],
        hs.system.natsPrefix,
      ).catch(() => undefined);
    } else if (draw <= 8) {
      await request(ctx, 'PATCH', path, { name: ctx.name('team') });
    } else {
      const deleted = await request(ctx, 'DELETE', path);
      if (deleted.status === 204) world.teams.delete(teamId);
    }
  },
  key: async (ctx) => {
    const { world, hs, rng } = ctx;
    if (world.keys.length && rng.chance(0.4)) {
      const id = world.keys.splice(rng.int(0, world.keys.length - 1), 1)[0];
      await keysCli(hs.db.url, ['key', 'revoke', id], hs.system.natsPrefix);
      return;
    }
    const scope = rng.pick(['full', 'read'] as const)!;
    const out = await keysCli(hs.db.url, ['key', 'create', hs.user.userId, '--scope', scope, '--json']);
    world.keys.push((JSON.parse(out) as { id: string }).id);
  },
  sshKeys: async (ctx) => {
    const keys = Array.from({ length: ctx.rng.int(0, 2) }, () => sshPublicKey(ctx.name('ssh')));
    await request(ctx, 'PUT', '/v2/account/ssh-keys', { keys });
  },
};

/** A template (a serverless one for endpoints), with a registry credential now and then. */
export async function createTemplate(ctx: ActionContext, serverless: boolean): Promise<void> {
  const { world, rng } = ctx;
  const reply = await request(ctx, 'POST', '/v1/templates', {
    name: ctx.name('template'),
    imageName: `acme/app:${rng.int(1, 9)}`,
    isServerless: serverless,
    ...(!serverless && world.registries.length && rng.chance(0.3)
      ? { containerRegistryAuthId: rng.pick(world.registries) }
      : {}),
  });
  const id = idOf(reply.body);
  if (reply.status === 201 && id) (serverless ? world.serverlessTemplates : world.templates).push(id);
}

/** Templates, registry credentials and network volumes: created, changed, deleted (refused while in use). */
export const recordActions: Record<string, Action> = {
  registry: async (ctx) => {
    const { world, rng } = ctx;
    if (world.registries.length > 2 && rng.chance(0.4)) {
      const id = rng.pick(world.registries)!;
      const reply = await request(ctx, 'DELETE', `/v1/containerregistryauth/${id}`);
      if (reply.status === 204) HistoryWorld.drop(world.registries, id);
      return;
    }
    const reply = await request(ctx, 'POST', '/v1/containerregistryauth', {
      name: ctx.name('registry'),
      username: 'bot',
      password: `pw-${rng.int(0, 1e6)}`,
    });
    const id = idOf(reply.body);
    if (reply.status === 201 && id) world.registries.push(id);
  },
  template: async (ctx) => {
    const { world, rng } = ctx;
    const choice = rng.weighted({ create: 4, serverless: 2, update: 3, delete: 2 });
    if (choice === 'update' && world.templates.length) {
      const id = rng.pick(world.templates)!;
      await request(ctx, 'PATCH', `/v2/templates/${id}`, {
        image: `acme/app:${rng.int(1, 9)}`,
        registry: rng.chance(0.5) ? (rng.pick(world.registries) ?? null) : null,
      });
      return;
    }
    if (choice === 'delete' && world.templates.length + world.serverlessTemplates.length) {
      const list =
        rng.chance(0.7) || !world.serverlessTemplates.length ? world.templates : world.serverlessTemplates;
      const id = rng.pick(list);
      if (!id) return;
      const reply = await request(ctx, 'DELETE', `/v1/templates/${id}`);
      if (reply.status === 204) HistoryWorld.drop(list, id);
      return;
    }
    await createTemplate(ctx, choice === 'serverless');
  },
  volume: async (ctx) => {
    const { world, rng } = ctx;
    const choice = rng.weighted({ create: 3, update: 2, delete: 2 });
    const id = rng.pick(world.volumes);
    if (choice === 'update' && id) {
      await request(ctx, 'PATCH', `/v2/network-volumes/${id}`, {
        name: ctx.name('volume'),
        size: rng.int(5, 50),
      });
    } else if (choice === 'delete' && id) {
      const reply = await request(ctx, 'DELETE', `/v2/network-volumes/${id}`);
      if (reply.status === 204) HistoryWorld.drop(world.volumes, id);
    } else {
      const reply = await request(ctx, 'POST', '/v1/networkvolumes', {
        name: ctx.name('volume'),
        size: rng.int(5, 20),
        dataCenterId: HISTORY_DC,
      });
      const created = idOf(reply.body);
      if (reply.status === 201 && created) world.volumes.push(created);
    }
  },
};

/**
 * Quotas, set by an operator: the default (which the history's user and its teams fall under), and teams' own in
 * two cohorts, raised, lowered (refused while below what is held) and cleared.
 */
export const quotaActions: Record<string, Action> = {
  quota: async (ctx) => {
    const { world, rng, hs } = ctx;
    const teams = [...world.teams.keys()];
    const path =
      teams.length && rng.chance(0.5) ? `/v2/teams/${rng.pick(teams)}/quota` : '/v2/quotas/default';
    const reply = rng.chance(0.15)
      ? await hs.operatorApi('DELETE', path)
      : await hs.operatorApi('PUT', path, {
          ...(path.startsWith('/v2/teams') && rng.chance(0.7) ? { cohort: rng.pick(['red', 'blue']) } : {}),
          limits: [
            {
              gpuTypeId: A100,
              gpus: rng.int(2, 24),
              ...(rng.chance(0.5) ? { borrowingLimit: rng.int(0, 8) } : {}),
            },
          ],
        });
    world.note(reply.status);
  },
};

/** Pods (GPU and CPU, through every action and edit) and clusters (created, renamed, their members run, deleted). */
export const computeActions: Record<string, Action> = {
  pod: async (ctx) => {
    const { world, rng } = ctx;
    const id = rng.pick(world.pods);
    const choice =
      world.pods.length > 6
        ? rng.weighted({ create: 1, act: 6, edit: 1 })
        : rng.weighted({ create: 3, act: 2, edit: 1 });
    if (choice === 'create' || !id) {
      const cpu = rng.chance(0.3);
      const template = rng.chance(0.3) ? rng.pick(world.templates) : undefined;
      const reply = await request(ctx, 'POST', '/v1/pods', {
        name: ctx.name('pod'),
        ...(template ? { templateId: template } : { imageName: `acme/app:${rng.int(1, 9)}` }),
        ...(cpu
          ? { computeType: 'CPU', cpuFlavorId: 'cpu3c' }
          : {
              gpuTypeId: A100,
              gpuCount: rng.int(1, 2),
              dataCenterIds: [HISTORY_DC],
              // Priorities and interruptible pods: placements that preempt (ADR 37).
              ...(rng.chance(0.4) ? { priority: rng.pick(['low', 'normal', 'high']) } : {}),
              ...(rng.chance(0.15) ? { interruptible: true } : {}),
            }),
        ...(!cpu && world.volumes.length && rng.chance(0.2)
          ? { networkVolumeId: rng.pick(world.volumes) }
          : !cpu && rng.chance(0.2)
            ? { volumeInGb: 20 }
            : {}),
        ports: ['8888/http'],
      });
      const created = idOf(reply.body);
      if (reply.status === 201 && created) world.pods.push(created);
      return;
    }
    if (choice === 'edit') {
      // v1's edit, or v2's container update (a new image restarts a RUNNING pod).
      if (rng.chance(0.5)) {
        await request(ctx, 'PATCH', `/v1/pods/${id}`, {
          name: ctx.name('pod'),
          env: { RUN: String(rng.int(0, 9)) },
        });
      } else {
        await request(ctx, 'PATCH', `/v2/pods/${id}`, {
          image: `acme/app:${rng.int(1, 9)}`,
          env: { RUN: String(rng.int(0, 9)) },
        });
      }
      return;
    }
    const action = rng.weighted({ stop: 3, start: 3, reset: 1, restart: 1, terminate: 1 });
    const reply =
      action === 'terminate'
        ? await request(ctx, 'DELETE', `/v1/pods/${id}`)
        : rng.chance(0.5) && action !== 'reset'
          ? await request(ctx, 'POST', `/v2/pods/${id}/action`, { action })
          : await request(ctx, 'POST', `/v1/pods/${id}/${action}`);
    if (action === 'terminate' && reply.status === 204) HistoryWorld.drop(world.pods, id);
  },
  cluster: async (ctx) => {
    const { world, rng } = ctx;
    if (world.clusters.length && rng.chance(0.3)) {
      await request(ctx, 'PATCH', `/v2/clusters/${rng.pick(world.clusters)}`, { name: ctx.name('cluster') });
      return;
    }
    if (world.clusters.length && (world.clusters.length > 2 || rng.chance(0.5))) {
      const id = world.clusters.shift()!;
      await request(ctx, 'DELETE', `/v2/clusters/${id}`);
      return;
    }
    const reply = await request(ctx, 'POST', '/v2/clusters', {
      name: ctx.name('cluster'),
      type: 'TRAINING',
      compute: { gpuTypeId: A100, gpuCountPerPod: rng.int(1, 2), podCount: rng.int(2, 3) },
      dataCenterIds: [HISTORY_DC],
      ...(rng.chance(0.4) ? { priority: rng.pick(['low', 'normal', 'high']) } : {}),
    });
    const id = idOf(reply.body);
    if (reply.status === 201 && id) world.clusters.push(id);
  },
};
