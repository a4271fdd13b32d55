import {
  PodStatus,
  POD_STATUSES,
  type ClusterMemberSpec,
  type ClusterMemberView,
  type ClusterPodsSummary,
  type ClusterPrimaryView,
  type ClusterView,
  type UsageRates,
} from '@app/contracts';
import type { ClusterMemberEntity } from './cluster-member.entity.js';
import type { ClusterEntity } from './cluster.entity.js';
import { SSH_PORT, joinEnv } from './cluster-topology.js';

/**
 * RunPod's summary: `total` counts the members still provisioned (not TERMINATED) and `byStatus` breaks that same
 * set down (no zero counts), so it always adds up to `total`; a TERMINATED member is in neither.
 */
export function podsSummary(byStatus: Partial<Record<PodStatus, number>>): ClusterPodsSummary {
  const summary: ClusterPodsSummary = { total: 0, byStatus: {} };
  for (const status of POD_STATUSES) {
    const n = byStatus[status] ?? 0;
    if (!n || status === PodStatus.Terminated) continue;
    summary.byStatus[status] = n;
    summary.total += n;
  }
  return summary;
}

/** `host:port` of the member's 22/tcp, only while it is RUNNING. */
export function sshEndpoint(member: ClusterMemberEntity): string | undefined {
  if (member.status !== PodStatus.Running) return undefined;
  const port = member.portMappings[SSH_PORT];
  return port ? `${member.publicIp}:${port}` : undefined;
}

export function primaryView(member: ClusterMemberEntity): ClusterPrimaryView {
  const endpoint = sshEndpoint(member);
  return endpoint
    ? { podId: member.podId, status: member.status, sshEndpoint: endpoint }
    : { podId: member.podId, status: member.status };
}

/** The interface's Cluster: optional fields are left out, never null. */
export function toClusterView(
  cluster: ClusterEntity,
  byStatus: Partial<Record<PodStatus, number>>,
  primary: ClusterMemberEntity | undefined,
): ClusterView {
  const view: ClusterView = {
    id: cluster.id,
    name: cluster.name,
    type: cluster.type,
    compute: {
      gpuTypeId: cluster.gpuTypeId,
      gpuCountPerPod: cluster.gpuCountPerPod,
      podCount: cluster.podCount,
    },
    dataCenterId: cluster.dataCenterId,
    pods: podsSummary(byStatus),
    network: { cidr: cluster.cidr, vxlanId: cluster.vxlanId, vxlanPort: cluster.vxlanPort },
    createdAt: cluster.createdAt.toISOString(),
  };
  if (primary) view.primary = primaryView(primary);
  return view;
}

export function toClusterMemberView(cluster: ClusterEntity, member: ClusterMemberEntity): ClusterMemberView {
  return {
    id: member.podId,
    name: member.name,
    clusterId: cluster.id,
    clusterRank: member.rank,
    clusterRole: member.role,
    clusterIp: member.overlayIp,
    status: member.status,
    image: cluster.image,
    dockerArgs: cluster.args,
    env: joinEnv(cluster.memberEnv, member.env),
    ports: cluster.ports,
    portMappings: member.portMappings,
    publicIp: member.publicIp,
    containerDiskInGb: cluster.disk,
    gpuTypeId: cluster.gpuTypeId,
    gpuCount: cluster.gpuCountPerPod,
    machineId: member.hostId,
    dataCenterId: cluster.dataCenterId,
    networkVolumeId: cluster.networkVolumeId,
    lastStatusChange: member.statusAt.toISOString(),
    createdAt: member.createdAt.toISOString(),
  };
}

/**
 * A member as pod-lifecycle creates it (`cluster.evt.created`): its placement, priced at `rates`, and container;
 * `env` is the member's own variables, which pod-lifecycle adds to the event's `env` (the cluster's, sent once).
 */
export function memberSpec(
  cluster: ClusterEntity,
  member: ClusterMemberEntity,
  rates: UsageRates,
): ClusterMemberSpec {
  const spec: ClusterMemberSpec = {
    podId: member.podId,
    rank: member.rank,
    role: member.role,
    name: member.name,
    placement: {
      podId: member.podId,
      hostId: member.hostId,
      dataCenterId: cluster.dataCenterId,
      publicIp: member.publicIp,
      gpuTypeId: cluster.gpuTypeId,
      gpuCount: cluster.gpuCountPerPod,
      portMappings: member.portMappings,
      rates,
    },
    image: cluster.image,
    env: member.env,
    ports: cluster.ports,
    disk: cluster.disk,
    startJupyter: cluster.startJupyter,
    overlayIp: member.overlayIp,
  };
  if (cluster.args !== null) spec.args = cluster.args;
  if (cluster.mounts) spec.mounts = cluster.mounts;
  return spec;
}
