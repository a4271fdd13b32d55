import type { PlacementView } from '../placement/placement.contracts.js';
import type { Priority } from '../quotas/priority.js';
import type { PodStatus } from './pod-status.js';

/** Published by pod-lifecycle (outbox) on every status change of a pod; the scheduler follows it. */
export interface PodStatusChangedEvent {
  podId: string;
  ownerId: string;
  clusterId: string | null;
  rank: number | null;
  status: PodStatus;
  previousStatus: PodStatus | null;
  hostId: string | null;
  publicIp: string | null;
  portMappings: Record<string, number>;
  /** ISO time of the change. */
  at: string;
  /** The serverless endpoint a worker pod serves (its cold start's phases are timed from these events); else null. */
  endpointId?: string | null;
}

export type ClusterMemberRole = 'primary' | 'node' | 'controller' | 'compute' | 'head' | 'worker';

/** One member pod of a cluster, already placed by the scheduler; pod-lifecycle creates and runs it. */
export interface ClusterMemberSpec {
  podId: string;
  rank: number;
  role: ClusterMemberRole;
  name: string;
  placement: PlacementView;
  image: string;
  args?: string;
  /** The member's own variables, added on top of the event's `env` (they win); see ClusterCreatedEvent.env. */
  env: Record<string, string>;
  ports: string[];
  /** Container disk, GB. */
  disk: number;
  startJupyter: boolean;
  /** The pod's address on the cluster's VXLAN overlay. */
  overlayIp: string;
  mounts?: {
    persistent?: { size: number; path: string };
    network?: { volumeId: string; path: string }[];
  };
}

/** Published by cluster-scheduler when a cluster is placed; pod-lifecycle creates the member pods. */
export interface ClusterCreatedEvent {
  clusterId: string;
  ownerId: string;
  templateId?: string;
  /**
   * The variables every member's environment has alike, sent once rather than in each of up to hundreds of members;
   * a member's environment is these, then its own `env`. Absent from events of earlier versions, whose members each
   * carry their whole environment.
   */
  env?: Record<string, string>;
  /** The cluster's priority, which its member pods keep (and show); absent (events of earlier versions): normal. */
  priority?: Priority;
  members: ClusterMemberSpec[];
}

/** Published by cluster-scheduler when a cluster is deleted; pod-lifecycle terminates the member pods. */
export interface ClusterDeletedEvent {
  clusterId: string;
  ownerId: string;
  podIds: string[];
}
