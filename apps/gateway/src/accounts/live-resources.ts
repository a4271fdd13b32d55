import { Subjects, type Actor } from '@app/contracts';
import type { QueryBus } from '@app/messaging';
import { listAllPods } from '../owner-queries/pod-pages.js';

/**
 * What an account still owns, as its owner apps answer (`2 pods, 1 endpoint`), for the refusal of a team's or a
 * user's delete: a deleted account's resources would be left to nobody, still running and billed. Terminated pods
 * are not live; the catalog's public templates are nobody's.
 */
export async function liveResourcesOf(queries: QueryBus, accountId: string): Promise<string[]> {
  // Asked as the account itself: each owner lists what the account owns, as it would for its own key.
  const actor: Actor = { userId: accountId, kind: 'user' };
  const [pods, clusters, endpoints, volumes, templates, registries] = await Promise.all([
    listAllPods(queries, {}, actor),
    queries.query(Subjects.cluster.list, {}, actor),
    queries.query(Subjects.endpoint.list, {}, actor),
    queries.query(Subjects.volume.list, {}, actor),
    queries.query(Subjects.template.list, {}, actor),
    queries.query(Subjects.registryAuth.list, {}, actor),
  ]);
  const counts: [number, string][] = [
    [pods.length, 'pod'],
    [clusters.length, 'cluster'],
    [endpoints.length, 'endpoint'],
    [volumes.length, 'network volume'],
    [templates.filter((t) => !t.isPublic).length, 'template'],
    [registries.length, 'registry credential'],
  ];
  return counts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}${n === 1 ? '' : 's'}`);
}
