import type { ClusterMemberRole, ClusterType } from '@app/contracts';

/**
 * What each member of a cluster is told about its peers: pure functions of the cluster and the rank, so a
 * replay rebuilds the same member specs.
 */
export interface TopologyInput {
  clusterId: string;
  type: ClusterType;
  rank: number;
  podCount: number;
  gpusPerPod: number;
  primaryIp: string;
  ownIp: string;
  cidr: string;
  /** The user's env: kept, except where a cluster variable of the same name is set (the cluster's wins). */
  userEnv: Record<string, string>;
  /** Joined into PUBLIC_KEY, one key a line; absent when startSsh is off. */
  sshPublicKeys?: readonly string[];
  /** Set when startJupyter is on. */
  jupyterPassword?: string;
}

export const TORCH_MASTER_PORT = '29500';
export const RAY_HEAD_PORT = '6379';
export const SLURM_CONTROLLER_PORT = '6817';
export const JUPYTER_PORT = '8888/http';
export const SSH_PORT = '22/tcp';

/** Rank 0 is the primary: SLURM controller / compute, RAY head / worker, otherwise primary / node. */
export function memberRole(type: ClusterType, rank: number): ClusterMemberRole {
  switch (type) {
    case 'SLURM':
      return rank === 0 ? 'controller' : 'compute';
    case 'RAY':
      return rank === 0 ? 'head' : 'worker';
    case 'TRAINING':
    case 'APPLICATION':
      return rank === 0 ? 'primary' : 'node';
  }
}

/** The ports every member exposes: the user's, plus 22/tcp with startSsh and 8888/http with startJupyter. */
export function memberPorts(
  userPorts: readonly string[],
  startSsh: boolean,
  startJupyter: boolean,
): string[] {
  const ports = [...new Set(userPorts)];
  const has = (port: number) => ports.some((p) => p.split('/')[0] === String(port));
  if (startSsh && !has(22)) ports.push(SSH_PORT);
  if (startJupyter && !has(8888)) ports.push(JUPYTER_PORT);
  return ports;
}

/** What every member of a cluster is told alike: the topology input without a member's own rank and address. */
export type ClusterTopologyInput = Omit<TopologyInput, 'rank' | 'ownIp'>;

/**
 * The variables every member of the cluster has alike: the user's env, then the cluster's peer-discovery variables
 * that do not depend on the member (the cluster's win over the user's of the same name). Stored once per cluster
 * and sent once in `cluster.evt.created`: with a member's own variables (`memberOwnEnv`) added on top, it is the
 * member's environment (`memberEnv`). Kept apart because a 250-pod cluster's members repeated it 250 times in
 * their rows, the event and its WAL (docs/adr/0005-fleet-and-placement.md).
 */
export function clusterEnv(input: ClusterTopologyInput): Record<string, string> {
  const env: Record<string, string> = {
    ...input.userEnv,
    CLUSTER_ID: input.clusterId,
    CLUSTER_TYPE: input.type,
    CLUSTER_CIDR: input.cidr,
    PRIMARY_ADDR: input.primaryIp,
    PRIMARY_PORT: TORCH_MASTER_PORT,
    MASTER_ADDR: input.primaryIp,
    MASTER_PORT: TORCH_MASTER_PORT,
    NUM_NODES: String(input.podCount),
    NUM_TRAINERS: String(input.gpusPerPod),
    WORLD_SIZE: String(input.podCount * input.gpusPerPod),
  };
  switch (input.type) {
    case 'RAY':
      env.RAY_HEAD_ADDR = `${input.primaryIp}:${RAY_HEAD_PORT}`;
      env.RAY_HEAD_PORT = RAY_HEAD_PORT;
      break;
    case 'SLURM':
      env.SLURM_CONTROLLER = input.primaryIp;
      env.SLURM_CONTROLLER_ADDR = input.primaryIp;
      env.SLURM_CONTROLLER_PORT = SLURM_CONTROLLER_PORT;
      env.SLURM_NODES = input.podCount > 1 ? `node-[0-${input.podCount - 1}]` : 'node-0';
      break;
    case 'TRAINING':
    case 'APPLICATION':
      break;
  }
  if (input.sshPublicKeys?.length) env.PUBLIC_KEY = input.sshPublicKeys.join('\n');
  if (input.jupyterPassword !== undefined) env.JUPYTER_PASSWORD = input.jupyterPassword;
  return env;
}

/** The variables of one member only (its role, rank and overlay address): they win over `clusterEnv`'s. */
export function memberOwnEnv(type: ClusterType, rank: number, ownIp: string): Record<string, string> {
  const env: Record<string, string> = {
    CLUSTER_ROLE: memberRole(type, rank),
    NODE_ADDR: ownIp,
    NODE_RANK: String(rank),
    RANK: String(rank),
  };
  switch (type) {
    case 'RAY':
      env.RAY_NODE_TYPE = rank === 0 ? 'head' : 'worker';
      break;
    case 'SLURM':
      env.SLURM_NODE_ROLE = rank === 0 ? 'controller' : 'compute';
      env.SLURM_NODE_NAME = `node-${rank}`;
      break;
    case 'TRAINING':
    case 'APPLICATION':
      break;
  }
  return env;
}

/**
 * A member's environment as its pod gets it: the cluster's variables, then the member's own. `shared` is the
 * cluster's stored `clusterEnv`; null for a cluster recorded before it was kept apart, whose member rows hold the
 * whole environment.
 */
export function joinEnv(
  shared: Record<string, string> | null,
  own: Record<string, string>,
): Record<string, string> {
  return shared ? { ...shared, ...own } : own;
}

/** The member's environment: the user's, then the peer-discovery variables of the cluster type. */
export function memberEnv(input: TopologyInput): Record<string, string> {
  return joinEnv(clusterEnv(input), memberOwnEnv(input.type, input.rank, input.ownIp));
}
