import { describe, expect, it } from '@jest/globals';
import { PodStatus } from '@app/contracts';
import { podManifest, type KubernetesPodOptions, type KubernetesPodRun } from './kubernetes-pod.js';

const run: KubernetesPodRun = {
  podId: 'p1',
  generation: 1,
  diskEpoch: 1,
  status: PodStatus.Provisioning,
  image: 'runpod/base:0.6.2',
  args: null,
  env: { RUNPOD_DC_ID: 'EU-RO-1' },
  ports: [],
  portMappings: {},
  gpuTypeId: 'NVIDIA A100 80GB PCIe',
  gpuCount: 1,
  hostId: 'gpu-node-7',
  containerDiskGb: 20,
  secretEnv: { names: [], open: () => ({}) },
  pullSecret: null,
};

const options: KubernetesPodOptions = {
  namespace: 'pods',
  dataCenterLabel: 'gpucp.io/data-center',
  gpuTypeLabel: 'gpucp.io/gpu-type',
  volumeClaimPattern: 'volume-{volumeId}',
};

describe('podManifest: which node a pod runs on', () => {
  it('hosts from the fleet file: any node of its data center and GPU type, by label', () => {
    const { spec } = podManifest(run, options);
    expect(spec?.nodeSelector).toEqual({
      'gpucp.io/data-center': 'EU-RO-1',
      'gpucp.io/gpu-type': 'NVIDIA-A100-80GB-PCIe',
    });
    expect(spec?.affinity).toBeUndefined();
  });

  it('hosts from the node watch: the node placement chose, by name', () => {
    const { spec } = podManifest(run, { ...options, pinToNode: true });
    expect(spec?.nodeSelector).toBeUndefined();
    expect(spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toEqual({
      nodeSelectorTerms: [
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['gpu-node-7'] }] },
      ],
    });
  });
});
