import { describe, expect, it } from '@jest/globals';
import { Subjects, priorityRank, type DataCenterView, type GpuTypeView, type PodView } from '@app/contracts';
import { InProcessQueries } from '../../../../test/support/in-process-buses.js';
import { StandInCommands } from '../../../../test/support/stand-in-commands.js';
import { Clock } from '../clock.js';
import { EndpointAutoscalerConfig } from '../endpoint-autoscaler.config.js';
import { EndpointEntity } from '../endpoints/endpoint.entity.js';
import { WorkerEntity } from '../workers/worker.entity.js';
import { PlacementCatalog } from './placement-catalog.js';
import { WorkerPods } from './worker-pods.js';

const GPU = { id: 'NVIDIA RTX A4000', tier: 'AMPERE_16', availability: { freeGpus: 4 } } as GpuTypeView;

/** The autoscaler's worker pod create, pod-lifecycle and the scheduler's catalog stood in for. */
function workerPods(): { pods: WorkerPods; commands: StandInCommands } {
  const commands = new StandInCommands().answer(Subjects.pod.create, () => ({ id: 'pod-1' }) as PodView);
  const queries = new InProcessQueries()
    .answer(Subjects.catalog.gpuTypes, () => [GPU])
    .answer(Subjects.catalog.dataCenters, () => [] as DataCenterView[]);
  const placement = new PlacementCatalog(queries.asBus(), new Clock());
  const pods = new WorkerPods(commands.asBus(), queries.asBus(), placement, new EndpointAutoscalerConfig());
  return { pods, commands };
}

function endpoint(priority: number): EndpointEntity {
  return Object.assign(new EndpointEntity(), {
    id: 'ep1',
    ownerId: 'user-alice',
    name: 'inference',
    type: 'QB',
    templateId: 'tpl-worker',
    gpuIds: ['AMPERE_16'],
    gpuCount: 1,
    locations: [],
    networkVolumeId: null,
    env: {},
    aiKeySealed: 'v1.test-key.c2VhbGVk',
    priority,
  });
}

const worker = Object.assign(new WorkerEntity(), { podId: 'pod-1', createCommandId: 'create-1' });

describe("a worker pod's create", () => {
  it("carries the endpoint's priority into pod.cmd.create, and never asks for an interruptible pod", async () => {
    for (const priority of ['low', 'normal', 'high'] as const) {
      const { pods, commands } = workerPods();
      await expect(pods.create(endpoint(priorityRank(priority)), worker)).resolves.toMatchObject({
        kind: 'applied',
      });
      const [create] = commands.sent(Subjects.pod.create);
      expect(create).toMatchObject({ templateId: 'tpl-worker', gpuTypeIds: [GPU.id], priority });
      expect(create).not.toHaveProperty('interruptible');
    }
  });
});
