import { DomainError, Subjects, type EndpointView, type TemplateView } from '@app/contracts';
import { DATA_SOURCE_SPEC } from '../../apps/endpoint-autoscaler/src/data-source.js';
import { DeleteEndpointHandler } from '../../apps/endpoint-autoscaler/src/endpoints/delete-endpoint/delete-endpoint.handler.js';
import { EndpointReferences } from '../../apps/endpoint-autoscaler/src/endpoints/endpoint-references.js';
import { EndpointsRepository } from '../../apps/endpoint-autoscaler/src/endpoints/endpoints.repository.js';
import { RemoveEndpointHandler } from '../../apps/endpoint-autoscaler/src/endpoints/remove-endpoint/remove-endpoint.handler.js';
import { SaveEndpointHandler } from '../../apps/endpoint-autoscaler/src/endpoints/save-endpoint/save-endpoint.handler.js';
import {
  WorkerEntity,
  type WorkerDesired,
} from '../../apps/endpoint-autoscaler/src/workers/worker.entity.js';
import { WorkersRepository } from '../../apps/endpoint-autoscaler/src/workers/workers.repository.js';
import { ALICE, HandlerHarness, InProcessQueries, type SendOptions } from './handler-harness.js';

function template(id: string, isServerless: boolean): TemplateView {
  return {
    id,
    name: id,
    imageName: 'worker:1',
    dockerArgs: '',
    env: {},
    ports: [],
    containerDiskInGb: 20,
    volumeInGb: 0,
    volumeMountPath: null,
    isServerless,
    containerRegistryAuthId: null,
    readme: '',
    userId: ALICE.userId,
    isPublic: false,
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

const TEMPLATES = new Map([
  ['tpl-worker', template('tpl-worker', true)],
  ['tpl-pod', template('tpl-pod', false)],
]);

/** pod-lifecycle's answer to `template.qry.get`: a serverless template (tpl-worker), a pod's (tpl-pod), or 404. */
export function findTemplate({ id }: { id: string }): TemplateView {
  const found = TEMPLATES.get(id);
  if (!found) throw DomainError.notFound('template', id);
  return found;
}

/**
 * endpoint-autoscaler's endpoint commands over its real schema (HandlerHarness), for its medium tests, with
 * pod-lifecycle's and the scheduler's answers (a template, a volume, the data centers, the spend status) standing in
 * for those apps in `queries`. A test registers the query handler it is about on `harness`.
 */
export class EndpointCommands {
  private constructor(
    readonly harness: HandlerHarness,
    readonly queries: InProcessQueries,
    readonly endpoints: EndpointsRepository,
    readonly workers: WorkersRepository,
  ) {}

  static async start(label: string): Promise<EndpointCommands> {
    const harness = await HandlerHarness.start(label, 'endpoint-autoscaler', DATA_SOURCE_SPEC);
    const queries = new InProcessQueries()
      .answer(Subjects.template.get, findTemplate)
      .answer(Subjects.volume.get, ({ id }) => ({
        id,
        name: 'models',
        size: 50,
        dataCenterId: 'EU-RO-1',
        createdAt: '2026-01-01T00:00:00.000Z',
      }))
      .answer(Subjects.catalog.dataCenters, () => [
        { id: 'EU-RO-1', name: 'Romania 1', region: 'RO', gpuAvailability: [], cpuAvailability: [] },
        { id: 'US-TX-3', name: 'Texas 3', region: 'US', gpuAvailability: [], cpuAvailability: [] },
      ])
      .answer(Subjects.spend.status, ({ at }, actor) => ({
        userId: actor.userId,
        operatorLimit: null,
        userLimit: null,
        monthlyLimit: null,
        month: '2026-03',
        startTime: '2026-03-01T00:00:00.000Z',
        endTime: at ?? '2026-03-01T12:00:00.000Z',
        spend: 0,
        reached: false,
      }));
    const endpoints = new EndpointsRepository(harness.dataSource);
    harness.register(
      new SaveEndpointHandler(endpoints, new EndpointReferences(queries.asBus()), queries.asBus()),
      new DeleteEndpointHandler(endpoints),
      new RemoveEndpointHandler(endpoints),
    );
    return new EndpointCommands(harness, queries, endpoints, new WorkersRepository(harness.dataSource));
  }

  /** Saves a new endpoint named `inference` on the serverless template, with `fields` on top. */
  create(fields: Record<string, unknown> = {}, options: SendOptions = {}): Promise<EndpointView> {
    return this.harness.send(
      Subjects.endpoint.save,
      {
        name: 'inference',
        templateId: 'tpl-worker',
        gpuIds: ['ADA_24'],
        aiKeySealed: 'v1.test-key.c2VhbGVk',
        ...fields,
      },
      options,
    );
  }

  /**
   * Writes a worker row of the endpoint as the control loop's applier does (no command makes workers): the pod
   * `podId`, wanted `desired`, last seen `podStatus`, made at `createdAt`.
   */
  async addWorker(
    endpointId: string,
    podId: string,
    desired: WorkerDesired,
    podStatus: string | null,
    createdAt: string,
  ): Promise<void> {
    const at = new Date(createdAt);
    const worker = Object.assign(new WorkerEntity(), {
      podId,
      endpointId,
      createCommandId: `create-${podId}`,
      created: true,
      desired,
      podStatus,
      actionSeq: 0,
      desiredSince: at,
      idleSince: null,
      createdAt: at,
    });
    await this.harness.dataSource.transaction((manager) => this.workers.insert([worker], manager));
  }

  stop(): Promise<void> {
    return this.harness.stop();
  }
}
