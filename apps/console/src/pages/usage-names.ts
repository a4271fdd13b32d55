import { useQuery } from '@tanstack/react-query';
import type { ClusterList, EndpointV2List, NetworkVolumeList, PodV2List } from '@app/contracts';
import { api } from '../api';

export type Family = 'pods' | 'clusters' | 'serverless' | 'network-volumes';

/** The list each family's names come from: the resources the caller can see now (a deleted one is not there). */
async function namesOf(family: Family): Promise<Map<string, string>> {
  const pairs: { id: string; name: string }[] =
    family === 'pods'
      ? (await api<PodV2List>('/v2/pods?includeClusterPods=true')).pods
      : family === 'clusters'
        ? (await api<ClusterList>('/v2/clusters')).clusters
        : family === 'serverless'
          ? (await api<EndpointV2List>('/v2/serverless')).endpoints
          : (await api<NetworkVolumeList>('/v2/network-volumes')).networkVolumes;
  return new Map(pairs.filter((p) => p.name).map((p) => [p.id, p.name]));
}

/**
 * The names of a family's resources by id, for usage rows: the billing API answers ids only (RunPod's fields),
 * so the console reads the names from the list the console shows that family in. Until it answers, and for
 * resources gone since, the row shows the id alone.
 */
export function useResourceNames(family: Family): Map<string, string> {
  const names = useQuery({
    queryKey: ['usage', 'names', family],
    queryFn: () => namesOf(family),
    staleTime: 30_000,
  });
  return names.data ?? new Map<string, string>();
}
