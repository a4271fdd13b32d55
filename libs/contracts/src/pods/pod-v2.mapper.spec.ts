import { describe, expect, it } from '@jest/globals';
import { PodStatus } from './pod-status.js';
import { toPodV2View } from './pod-v2.mapper.js';
import type { PodView } from './pod.dto.js';

/** A RUNNING cluster member with every field set: ports published, env, a drain's reason with its deadline. */
const running: PodView = {
  id: 'pod-1',
  name: 'trainer "0"',
  userId: 'team-1',
  image: 'runpod/pytorch:2.4',
  imageName: 'runpod/pytorch:2.4',
  dockerArgs: 'python train.py',
  env: { RUN: '1', API_TOKEN: '********', '2': 'numeric name' },
  ports: ['8888/http', '22/tcp', '9000/udp'],
  portMappings: { '22': 40122, '8888': 40888 },
  publicIp: '192.0.2.7',
  containerDiskInGb: 40,
  volumeInGb: 50,
  volumeMountPath: '/workspace',
  computeType: 'GPU',
  gpuTypeId: 'NVIDIA A100 80GB PCIe',
  gpuCount: 8,
  cpuFlavorId: null,
  machineId: 'host-7',
  dataCenterId: 'US-TX-1',
  machine: { gpuTypeId: 'NVIDIA A100 80GB PCIe', dataCenterId: 'US-TX-1' },
  clusterId: 'cluster-1',
  endpointId: null,
  clusterRank: 2,
  clusterRole: 'worker',
  clusterIp: '10.128.0.3',
  templateId: 'tpl-1',
  containerRegistryAuthId: 'reg-1',
  networkVolumeId: 'vol-1',
  status: PodStatus.Running,
  desiredStatus: PodStatus.Running,
  statusReason: null,
  reason: {
    code: 'HOST_DRAINING',
    message: 'host-7 drains',
    since: '2026-03-01T10:00:00.123Z',
    details: { deadline: '2026-03-02T00:00:00.000Z' },
  },
  hostNotice: 'HOST_DRAINING: host-7 drains',
  stopDeadline: '2026-03-02T00:00:00.000Z',
  lastStatusChange: '2026-03-01T09:00:00.000Z',
  lastStartedAt: '2026-03-01T09:00:00.000Z',
  createdAt: '2026-03-01T08:59:59.999Z',
  costPerHr: 12.345678,
  priority: 'high',
  interruptible: false,
  allowedActions: ['stop', 'reset'],
  actions: ['stop', 'restart'],
};

const stoppedCpu: PodView = {
  ...running,
  status: PodStatus.Exited,
  computeType: 'CPU',
  cpuFlavorId: 'cpu3c',
  clusterId: null,
  publicIp: null,
};

describe('toPodV2View', () => {
  it.each([
    ['a running cluster member', running],
    ['a stopped CPU pod', stoppedCpu],
  ])(
    "shapes %s as it shapes the view's JSON read back: pod-lifecycle's pages and the gateway's views agree",
    (_what, view) => {
      const shaped = JSON.stringify(toPodV2View(view));
      expect(shaped).toBe(JSON.stringify(toPodV2View(JSON.parse(JSON.stringify(view)) as PodView)));
      expect(JSON.parse(shaped)).toMatchObject({ id: 'pod-1', name: 'trainer "0"' });
    },
  );
});
