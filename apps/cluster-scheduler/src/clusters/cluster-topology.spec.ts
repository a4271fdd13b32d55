import { describe, expect, it } from '@jest/globals';
import {
  clusterEnv,
  joinEnv,
  memberEnv,
  memberOwnEnv,
  memberPorts,
  memberRole,
  type TopologyInput,
} from './cluster-topology.js';

const base: TopologyInput = {
  clusterId: 'c1',
  type: 'TRAINING',
  rank: 1,
  podCount: 4,
  gpusPerPod: 8,
  primaryIp: '10.128.0.1',
  ownIp: '10.128.0.2',
  cidr: '10.128.0.0/28',
  userEnv: { HF_HOME: '/cache', MASTER_ADDR: 'overridden' },
};

describe('cluster topology', () => {
  it.each([
    ['SLURM', 'controller', 'compute'],
    ['RAY', 'head', 'worker'],
    ['TRAINING', 'primary', 'node'],
    ['APPLICATION', 'primary', 'node'],
  ] as const)('%s: rank 0 is the %s, others are %s', (type, first, other) => {
    expect(memberRole(type, 0)).toBe(first);
    expect(memberRole(type, 3)).toBe(other);
  });

  it('adds 22/tcp for SSH and 8888/http for Jupyter, once', () => {
    expect(memberPorts(['8080/http'], true, true)).toEqual(['8080/http', '22/tcp', '8888/http']);
    expect(memberPorts(['22/tcp', '8888/http'], true, true)).toEqual(['22/tcp', '8888/http']);
    expect(memberPorts([], false, false)).toEqual([]);
  });

  it('tells a training member where its peers are (the cluster wins over the user)', () => {
    const env = memberEnv(base);
    expect(env).toMatchObject({
      HF_HOME: '/cache',
      MASTER_ADDR: '10.128.0.1',
      PRIMARY_ADDR: '10.128.0.1',
      NODE_ADDR: '10.128.0.2',
      NODE_RANK: '1',
      NUM_NODES: '4',
      NUM_TRAINERS: '8',
      WORLD_SIZE: '32',
    });
    expect(env.PUBLIC_KEY).toBeUndefined();
    expect(env.JUPYTER_PASSWORD).toBeUndefined();
  });

  it('gives Ray the head address and Slurm the controller', () => {
    expect(memberEnv({ ...base, type: 'RAY' })).toMatchObject({
      RAY_HEAD_ADDR: '10.128.0.1:6379',
      RAY_NODE_TYPE: 'worker',
    });
    expect(memberEnv({ ...base, type: 'SLURM', rank: 0 })).toMatchObject({
      SLURM_CONTROLLER: '10.128.0.1',
      SLURM_NODE_ROLE: 'controller',
      SLURM_NODES: 'node-[0-3]',
    });
  });

  it('injects PUBLIC_KEY and JUPYTER_PASSWORD when asked', () => {
    const env = memberEnv({
      ...base,
      sshPublicKeys: ['ssh-ed25519 AAAA a', 'ssh-ed25519 BBBB b'],
      jupyterPassword: 'pw',
    });
    expect(env.PUBLIC_KEY).toBe('ssh-ed25519 AAAA a\nssh-ed25519 BBBB b');
    expect(env.JUPYTER_PASSWORD).toBe('pw');
  });

  it.each(['TRAINING', 'APPLICATION', 'RAY', 'SLURM'] as const)(
    "%s: the cluster-wide variables and a member's own make its environment, nothing of one member in the shared part",
    (type) => {
      const input: TopologyInput = {
        ...base,
        type,
        userEnv: { ...base.userEnv, RANK: 'user', NODE_ADDR: 'user' },
      };
      const shared = clusterEnv(input);
      for (const rank of [0, 1, 3]) {
        const own = memberOwnEnv(type, rank, `10.128.0.${rank + 1}`);
        const whole = memberEnv({ ...input, rank, ownIp: `10.128.0.${rank + 1}` });
        expect(joinEnv(shared, own)).toEqual(whole);
        expect(whole).toMatchObject({ RANK: String(rank), NODE_ADDR: `10.128.0.${rank + 1}` });
        // What differs between members is only in their own part.
        for (const [name, value] of Object.entries(whole)) {
          if (shared[name] !== value) expect(own[name]).toBe(value);
        }
      }
      // The same shared part for every member: nothing rank- or address-dependent leaks into it.
      expect(Object.keys(shared)).not.toEqual(expect.arrayContaining(['CLUSTER_ROLE']));
      expect(shared.NODE_RANK).toBeUndefined();
    },
  );

  it("joins a member row of a cluster stored before the split (no shared part) as the row's whole environment", () => {
    const whole = memberEnv(base);
    expect(joinEnv(null, whole)).toBe(whole);
  });
});
