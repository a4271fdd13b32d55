import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  DomainError,
  ErrorCode,
  Subjects,
  maskEnv,
  newEndpointId,
  type Actor,
  type EndpointMetrics,
  type EndpointView,
  type MetricsWindow,
  type NetworkVolumeView,
  type SaveEndpointCommand,
  type Vocabulary,
  type WorkerList,
} from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';
import { WorkerKeyBox } from '@app/platform';
import { AccountsService } from '../accounts/accounts.service.js';
import { GatewayConfig } from '../gateway.config.js';
import { EndpointAccess } from '../jobs/endpoint-access.js';
import { LbLoad } from '../lb/lb-load.js';
import { LbWorkers } from '../lb/lb-workers.js';
import { NetworkVolumesService } from '../network-volumes/network-volumes.service.js';
import { toLbWorkerList, toWorkerList } from './worker-list.view.js';

/** What ties a worker's pod to its endpoint: the autoscaler sets it in every worker's env (worker-env.ts). */
const WORKER_ENDPOINT_ENV = 'RUNPOD_ENDPOINT_ID';

/** An endpoint with what the gateway adds for its owner: the opened workers' key and the volume's place. */
export interface EndpointDetails {
  view: EndpointView;
  aiKey: string | null;
  networkVolume: NetworkVolumeView | null;
}

/**
 * Serverless endpoints, owned by endpoint-autoscaler, whose save command checks every rule (the template and the
 * network volume it names included). The gateway mints the workers' API key (bound to the endpoint, sealed into
 * the command) when one is created, and revokes it if the command is refused.
 */
@Injectable()
export class EndpointsService {
  private readonly logger = new Logger('endpoints');
  private readonly box: WorkerKeyBox;

  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly accounts: AccountsService,
    private readonly volumes: NetworkVolumesService,
    private readonly access: EndpointAccess,
    private readonly lbWorkers: LbWorkers,
    private readonly lbLoad: LbLoad,
    config: GatewayConfig,
  ) {
    this.box = new WorkerKeyBox(config.WORKER_KEY_RING, config.REGISTRY_AUTH_KEYS);
  }

  async save(command: SaveEndpointCommand, actor: Actor): Promise<EndpointDetails> {
    const view = command.id ? await this.modify(command, actor) : await this.create(command, actor);
    return {
      view,
      aiKey: this.openKey(view),
      networkVolume: view.networkVolumeId ? await this.volumes.find(view.networkVolumeId, actor) : null,
    };
  }

  /**
   * The actor's endpoints. Their secrets (the workers' key, secret-looking env values) only with `secrets`: for a
   * key that may manage the endpoints; a read-only key gets null and masks (docs/adr/0014-edge-hardening.md).
   */
  async list(actor: Actor, { secrets }: { secrets: boolean }): Promise<EndpointDetails[]> {
    const views = await this.queries.query(Subjects.endpoint.list, {}, actor);
    return Promise.all(
      views.map(async (view) => ({
        view: secrets ? view : { ...view, env: maskEnv(view.env ?? {}) },
        aiKey: secrets ? this.openKey(view) : null,
        networkVolume: view.networkVolumeId ? await this.volumes.find(view.networkVolumeId, actor) : null,
      })),
    );
  }

  /** One endpoint of the actor's (404/403 otherwise), its secrets as `list` gives them. */
  async get(id: string, actor: Actor, { secrets }: { secrets: boolean }): Promise<EndpointDetails> {
    const view = await this.queries.query(Subjects.endpoint.get, { id }, actor);
    return {
      view: secrets ? view : { ...view, env: maskEnv(view.env ?? {}) },
      aiKey: secrets ? this.openKey(view) : null,
      networkVolume: view.networkVolumeId ? await this.volumes.find(view.networkVolumeId, actor) : null,
    };
  }

  /** An update that sends only what changes: `toCommand` fills the rest from the endpoint's current record. */
  async update(
    id: string,
    toCommand: (current: EndpointView) => SaveEndpointCommand,
    actor: Actor,
  ): Promise<EndpointDetails> {
    const current = await this.queries.query(Subjects.endpoint.get, { id }, actor);
    return this.save(toCommand(current), actor);
  }

  /**
   * The endpoint's live workers (queue-broker) with their pods' runs (pod-lifecycle), once the endpoint is known
   * to be the actor's: two queries at once, whatever the number of workers. A load-balancing endpoint's are its
   * pods with the state of their last /ping.
   */
  async workers(id: string, actor: Actor): Promise<WorkerList> {
    const endpoint = await this.queries.query(Subjects.endpoint.get, { id }, actor);
    if (endpoint.type === 'LB') {
      // Its workers never register with the broker: its pods, with their /ping state (ADR 26).
      const runs = await this.queries.query(Subjects.pod.listWorkerRuns, { endpointId: id }, actor);
      return toLbWorkerList(runs, this.lbWorkers.states(id), new Date(), this.lbLoad.outstanding);
    }
    const [broker, runs] = await Promise.all([
      this.queries.query(Subjects.worker.list, { endpointId: id }, actor),
      this.queries.query(Subjects.pod.listWorkerRuns, { endpointId: id }, actor),
    ]);
    return toWorkerList(broker, runs);
  }

  /**
   * The endpoint's metrics over `window` (queue-broker's rollups), once the endpoint is known to be the actor's
   * (asked as the queue routes ask, with their ENDPOINT_CACHE_MS: dashboards poll this route).
   */
  async metrics(id: string, window: MetricsWindow, actor: Actor): Promise<EndpointMetrics> {
    await this.access.ownedEndpoint(id, actor);
    return this.queries.query(Subjects.job.metrics, { endpointId: id, window }, actor);
  }

  /**
   * The pod of one of the endpoint's workers (a worker's id is its pod's), for its logs: the endpoint is the
   * actor's (404/403 otherwise), and the pod one the endpoint's autoscaler made, else 404, whoever owns it.
   */
  async workerPod(id: string, workerId: string, actor: Actor): Promise<string> {
    await this.queries.query(Subjects.endpoint.get, { id }, actor);
    const pod = await this.queries
      .query(Subjects.pod.get, { podId: workerId }, actor)
      .catch((error: unknown) => {
        if (error instanceof DomainError && error.code === ErrorCode.Forbidden) return null;
        throw error;
      });
    if (pod?.env[WORKER_ENDPOINT_ENV] !== id) {
      throw new DomainError(ErrorCode.NotFound, `worker ${workerId} is not a worker of endpoint ${id}`);
    }
    return pod.id;
  }

  /**
   * Deletes the endpoint (workersMin and workersMax must be 0), then revokes its workers' key. The endpoint is
   * asked for first, so an unknown or another user's id answers 404/403 without recording a command that can
   * only fail (as get, update and the workers' list do). The owner's refusal while workers may run names the
   * fields of the caller's surface (`vocabulary`).
   */
  async delete(id: string, actor: Actor, vocabulary: Vocabulary): Promise<void> {
    await this.queries.query(Subjects.endpoint.get, { id }, actor);
    await this.commands.execute(Subjects.endpoint.delete, { id, vocabulary }, actor);
    await this.accounts.revokeWorkerKeys(id, actor);
  }

  private modify(command: SaveEndpointCommand, actor: Actor): Promise<EndpointView> {
    return this.commands.execute(Subjects.endpoint.save, command, actor);
  }

  /** The command id is chosen here so the endpoint's id (derived from it) is known to bind the workers' key. */
  private async create(command: SaveEndpointCommand, actor: Actor): Promise<EndpointView> {
    const commandId = randomUUID();
    const endpointId = newEndpointId(commandId);
    const issued = await this.accounts.issueWorkerKey(actor, endpointId);
    try {
      return await this.commands.execute(
        Subjects.endpoint.save,
        { ...command, aiKeySealed: this.box.seal(issued.key, endpointId) },
        actor,
        { commandId },
      );
    } catch (error) {
      // Refused: the endpoint will never exist, so neither should its key. Unanswered: it may still be created.
      if (error instanceof DomainError && error.code !== ErrorCode.OwnerUnavailable) {
        await this.accounts.revokeKey(issued.record.id, actor);
      }
      throw error;
    }
  }

  private openKey(view: EndpointView): string | null {
    if (!view.aiKeySealed) return null;
    try {
      return this.box.open(view.aiKeySealed, view.id);
    } catch (error) {
      this.logger.warn(
        `the workers' key of endpoint ${view.id} cannot be opened: ${(error as Error).message}`,
      );
      return null;
    }
  }
}
