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

/** The member's environment: the user's, then the peer-discovery variables of the cluster type. */
export function memberEnv(input: TopologyInput): Record<string, string> {
  const env: Record<string, string> = {
    ...input.userEnv,
    CLUSTER_ID: input.clusterId,
    CLUSTER_TYPE: input.type,
    CLUSTER_ROLE: memberRole(input.type, input.rank),
    CLUSTER_CIDR: input.cidr,
    PRIMARY_ADDR: input.primaryIp,
    PRIMARY_PORT: TORCH_MASTER_PORT,
    MASTER_ADDR: input.primaryIp,
    MASTER_PORT: TORCH_MASTER_PORT,
    NODE_ADDR: input.ownIp,
    NODE_RANK: String(input.rank),
    RANK: String(input.rank),
    NUM_NODES: String(input.podCount),
    NUM_TRAINERS: String(input.gpusPerPod),
    WORLD_SIZE: String(input.podCount * input.gpusPerPod),
  };
  switch (input.type) {
    case 'RAY':
      env.RAY_HEAD_ADDR = `${input.primaryIp}:${RAY_HEAD_PORT}`;
      env.RAY_HEAD_PORT = RAY_HEAD_PORT;
      env.RAY_NODE_TYPE = input.rank === 0 ? 'head' : 'worker';
      break;
    case 'SLURM':
      env.SLURM_CONTROLLER = input.primaryIp;
      env.SLURM_CONTROLLER_ADDR = input.primaryIp;
      env.SLURM_CONTROLLER_PORT = SLURM_CONTROLLER_PORT;
      env.SLURM_NODE_ROLE = input.rank === 0 ? 'controller' : 'compute';
      env.SLURM_NODE_NAME = `node-${input.rank}`;
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
