import type { HostListView } from '@app/contracts';
import { A100, HISTORY_DC } from './history-system.js';
import type { Action } from './resource-actions.js';

/** The host an operator adds, grows and removes; the seeded four stay (one at most out of service at a time). */
const EXTRA_HOST = 'history-host-5';

/**
 * The fleet, changed by an operator (docs/adr/0039-live-fleet.md): cordons, drains with a short deadline,
 * health reports and simulated GPU faults on the seeded hosts, and a fifth host registered, grown, drained and
 * removed. Hosts out of service are brought back first, so the pods, clusters and workers of the history still
 * find room; every refusal (removing a host that holds pods, say) is an outcome the rebuild must reproduce.
 */
export const fleetActions: Record<string, Action> = {
  fleet: async (ctx) => {
    const { world, rng, hs } = ctx;
    const listed = await hs.operatorApi<HostListView>('GET', '/v2/fleet/hosts?limit=20');
    if (listed.status !== 200) {
      world.note(listed.status);
      return;
    }
    const hosts = listed.body.hosts;
    const seeded = hosts.filter((h) => h.id !== EXTRA_HOST);
    const away = seeded.find((h) => h.state !== 'READY');
    const extra = hosts.find((h) => h.id === EXTRA_HOST);
    const reply = async (method: string, path: string, body?: unknown) =>
      world.note((await hs.operatorApi(method, path, body)).status);

    if (away && rng.chance(0.6)) {
      // Back into service: the cordon or drain lifted, the health cleared.
      if (away.state === 'UNHEALTHY') {
        await reply('POST', `/v2/fleet/hosts/${away.id}/health`, { healthy: true });
      } else await reply('POST', `/v2/fleet/hosts/${away.id}/uncordon`);
      return;
    }
    const choice = rng.weighted({ extra: 3, cordon: 2, drain: 2, unhealthy: 1, fault: 1 });
    if (choice === 'extra') {
      if (!extra || extra.state === 'GONE') {
        await reply('POST', '/v2/fleet/hosts', {
          id: EXTRA_HOST,
          dataCenterId: HISTORY_DC,
          gpuTypeId: A100,
          gpuCount: rng.pick([4, 8]),
          publicIp: '192.0.2.250',
          portRange: [30000, 30059],
        });
      } else if (extra.state === 'DRAINING' || rng.chance(0.3)) {
        await reply('DELETE', `/v2/fleet/hosts/${EXTRA_HOST}`);
      } else {
        await reply('POST', `/v2/fleet/hosts/${EXTRA_HOST}/drain`, { deadlineSeconds: rng.int(0, 3) });
      }
      return;
    }
    if (away) return;
    const host = rng.pick(seeded);
    if (!host) return;
    if (choice === 'cordon') await reply('POST', `/v2/fleet/hosts/${host.id}/cordon`, { reason: 'history' });
    else if (choice === 'drain') {
      await reply('POST', `/v2/fleet/hosts/${host.id}/drain`, { deadlineSeconds: rng.int(0, 3) });
    } else if (choice === 'unhealthy') {
      await reply('POST', `/v2/fleet/hosts/${host.id}/health`, { healthy: false, reason: 'history' });
    } else {
      await reply('POST', `/v2/fleet/hosts/${host.id}/gpu-faults`, { kind: 'XID', gpuIndex: rng.int(0, 7) });
    }
  },
};
