/**
 * The REST surfaces whose field names a pod request's errors speak: `v1` (runpodctl's REST, also GraphQL's names
 * for these fields) and `v2` (the management API, RunPod's MCP server). The command carries the request in v1's
 * names whatever the surface, so the owners name a field through this table, never by a string of their own.
 */
export const POD_VOCABULARIES = ['v1', 'v2'] as const;
export type PodVocabulary = (typeof POD_VOCABULARIES)[number];

/** Each field of a pod request an owner's check may name, by its name in the command, as each surface calls it. */
const POD_FIELDS = {
  imageName: { v1: 'imageName', v2: 'image' },
  /** The GPU types asked for (v1 takes one or a list). */
  gpuTypes: { v1: 'gpuTypeId (or gpuTypeIds)', v2: 'gpu.id' },
  gpuTypeId: { v1: 'gpuTypeId', v2: 'gpu.id' },
  gpuCount: { v1: 'gpuCount', v2: 'gpu.count' },
  cpuFlavorId: { v1: 'cpuFlavorId', v2: 'cpu.id' },
  /** How a request asks for a CPU pod instead. */
  cpuPod: { v1: 'computeType CPU', v2: 'cpu' },
  dataCenterIds: { v1: 'dataCenterIds', v2: 'dataCenterIds' },
  networkVolumeId: { v1: 'networkVolumeId', v2: 'mounts.network.0.volumeId' },
  /** The pod's own volume disk (host-local persistent storage). */
  volumeInGb: { v1: 'volumeInGb', v2: 'mounts.persistent' },
} as const satisfies Record<string, Record<PodVocabulary, string>>;

export type PodField = keyof typeof POD_FIELDS;

/** `field` as the surface that sent the request names it (v1 when the command does not say). */
export function podField(field: PodField, vocabulary: PodVocabulary = 'v1'): string {
  return POD_FIELDS[field][vocabulary];
}

/** The naming function of one request's surface. */
export function podFieldNames(vocabulary: PodVocabulary = 'v1'): (field: PodField) => string {
  return (field) => podField(field, vocabulary);
}
