/**
 * The surfaces whose field names a request's errors speak: `v1` (runpodctl's REST), `v2` (the management API,
 * RunPod's MCP server) and `graphql` (its mutations' arguments, RunPod's SDKs). A command carries the request in
 * one set of names whatever the surface, so an owner names a field through a table of its surface's names (pods:
 * POD_FIELDS below), never by a string of its own.
 */
export const VOCABULARIES = ['v1', 'v2', 'graphql'] as const;
export type Vocabulary = (typeof VOCABULARIES)[number];

/** Each field of a pod request an owner's check may name, by its name in the command, as each surface calls it. */
const POD_FIELDS = {
  imageName: { v1: 'imageName', v2: 'image', graphql: 'imageName' },
  /** The GPU types asked for (v1 takes one or a list). */
  gpuTypes: { v1: 'gpuTypeId (or gpuTypeIds)', v2: 'gpu.id', graphql: 'gpuTypeId' },
  gpuTypeId: { v1: 'gpuTypeId', v2: 'gpu.id', graphql: 'gpuTypeId' },
  gpuCount: { v1: 'gpuCount', v2: 'gpu.count', graphql: 'gpuCount' },
  cpuFlavorId: { v1: 'cpuFlavorId', v2: 'cpu.id', graphql: 'instanceId' },
  /** How a request asks for a CPU pod instead. */
  cpuPod: { v1: 'computeType CPU', v2: 'cpu', graphql: 'deployCpuPod' },
  dataCenterIds: { v1: 'dataCenterIds', v2: 'dataCenterIds', graphql: 'dataCenterId' },
  networkVolumeId: { v1: 'networkVolumeId', v2: 'mounts.network.0.volumeId', graphql: 'networkVolumeId' },
  /** The pod's own volume disk (host-local persistent storage). */
  volumeInGb: { v1: 'volumeInGb', v2: 'mounts.persistent', graphql: 'volumeInGb' },
} as const satisfies Record<string, Record<Vocabulary, string>>;

export type PodField = keyof typeof POD_FIELDS;

/** List fields of the command that a surface takes as one value (GraphQL's one `dataCenterId`): no item index. */
const ONE_VALUE: Readonly<Partial<Record<Vocabulary, readonly PodField[]>>> = {
  graphql: ['dataCenterIds'],
};

/**
 * `field` as the surface that sent the request names it (v1 when the command does not say); with `index`, that
 * item of a list field (`dataCenterIds.0`), unless the surface takes the list as one value.
 */
export function podField(field: PodField, vocabulary: Vocabulary = 'v1', index?: number): string {
  const name = POD_FIELDS[field][vocabulary];
  if (index === undefined || ONE_VALUE[vocabulary]?.includes(field)) return name;
  return `${name}.${index}`;
}

/** The naming function of one request's surface. */
export function podFieldNames(vocabulary: Vocabulary = 'v1'): (field: PodField, index?: number) => string {
  return (field, index) => podField(field, vocabulary, index);
}
