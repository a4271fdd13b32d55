import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import {
  LB_WORKER_ENV,
  lbWorkerPorts,
  PodStatus,
  Subjects,
  type PodStatusChangedEvent,
} from '@app/contracts';
import { EventHandler, NatsClient, type EventContext } from '@app/messaging';
import { SecretBox, WorkerKeyBox } from '@app/platform';
import { LogShipper } from '../logs/log-shipper.js';
import { PodLifecycleConfig } from '../pod-lifecycle.config.js';
import type { PodEntity } from '../pods/pod.entity.js';
import { PodRepository } from '../pods/pod.repository.js';
import { isLive } from '../pods/pod-status-machine.js';
import { RegistryAuthRepository } from '../registry-auth/registry-auth.repository.js';
import { LbWorkersProber } from './lb-workers.prober.js';
import { ObservationReporter } from './observation-reporter.js';
import { partitionOf, RuntimeRouter, type RuntimeWork } from './runtime-router.js';
import { RUNTIME_DRIVER, type PodRun, type PullSecret, type RuntimeDriver } from './runtime-driver.js';
import { sealedSecretEnv } from './sealed-secret-env.js';

/** Pods reconciled at once while adopting a partition. */
const ADOPT_CONCURRENCY = 8;
/**
 * How often an owner looks again at its pods still on their way up (PROVISIONING, STARTING): the safety net for a
 * status change whose event could not be routed in time (dead-lettered during a long takeover). Their drivers
 * already follow them, so it costs a query and, for those, nothing else.
 */
const RESYNC_MS = 30_000;

/**
 * Keeps the runtime in line with the pods' statuses, each pod driven by one replica (docs/adr/0018): the one that
 * holds the pod's partition (runtime-router.ts). It follows pod-lifecycle's own `pod.evt.status-changed` events
 * (published after the status change committed), routing each to the pod's owner, and drives every live pod of a
 * partition it takes. Each time it reads the pod's current row (a stale event just re-applies the current state)
 * and tells the driver: live → ensure run `generation` runs; EXITED or ERROR → stop, keep the disk; TERMINATED →
 * remove. One pod's reconciles run one after the other, so the last one applies the latest row. Driver failures
 * become ERROR observations, never retried events.
 */
@Injectable()
export class PodRuntimeReconciler implements OnApplicationBootstrap, BeforeApplicationShutdown, RuntimeWork {
  private readonly logger = new Logger('runtime');
  private readonly box: SecretBox | null;
  /** Opens the workers' keys in pods' secret variables (WORKER_KEY_RING, or REGISTRY_AUTH_KEYS for older ones). */
  private readonly workerKeys: WorkerKeyBox;
  /** Null in REPLAY_MODE: the driver runs nothing, observations come from the command log. */
  private readonly router: RuntimeRouter | null;
  /** Each pod's reconciles, chained. */
  private readonly queues = new Map<string, Promise<void>>();
  private resync?: NodeJS.Timeout;

  constructor(
    @Inject(RUNTIME_DRIVER) private readonly driver: RuntimeDriver,
    private readonly pods: PodRepository,
    private readonly registryAuths: RegistryAuthRepository,
    private readonly reporter: ObservationReporter,
    private readonly logs: LogShipper,
    private readonly lbWorkers: LbWorkersProber,
    nats: NatsClient,
    config: PodLifecycleConfig,
  ) {
    this.box = config.REGISTRY_AUTH_KEYS ? new SecretBox(config.REGISTRY_AUTH_KEYS) : null;
    this.workerKeys = new WorkerKeyBox(config.WORKER_KEY_RING, config.REGISTRY_AUTH_KEYS);
    this.router = config.REPLAY_MODE
      ? null
      : new RuntimeRouter(nats, this, {
          databaseUrl: config.DATABASE_URL,
          checkMs: config.LEADER_CHECK_MS,
          // Well inside the event's ack wait: a route lost with a dying owner fails, and the event comes back after
          // its back-off, rather than JetStream delivering it again alongside (each delivery spends one of
          // COMMAND_MAX_DELIVER).
          timeoutMs: Math.max(1000, Math.floor(config.COMMAND_ACK_WAIT_MS / 3)),
          log: (line) => this.logger.log(line),
        });
  }

  /** Takes this replica's share of the partitions (all of them when alone) and adopts their live pods. */
  async onApplicationBootstrap(): Promise<void> {
    this.logger.log(`runtime driver: ${this.driver.name}`);
    if (!this.router) return;
    this.router.start();
    await this.router.settled();
    this.resync = setInterval(() => void this.resyncStarting(), RESYNC_MS);
    this.resync.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.resync);
    await this.router?.stop();
    await this.driver.shutdown();
    await this.logs.shutdown();
    await this.reporter.flush();
  }

  @EventHandler(Subjects.pod.statusChanged)
  async onStatusChanged(ctx: EventContext<PodStatusChangedEvent>): Promise<void> {
    await this.router?.route(ctx.event.payload.podId);
  }

  async adopt(partitions: number[]): Promise<void> {
    const taken = new Set(partitions);
    const pods = (await this.pods.listLive()).filter((pod) => taken.has(partitionOf(pod.id)));
    if (!pods.length) return;
    this.logger.log(`adopting ${pods.length} live pod(s) of the partitions taken`);
    // A few at a time: a takeover of thousands of pods must not flood the runtime's API.
    const pending = pods.map((pod) => pod.id);
    const worker = async () => {
      for (let podId = pending.shift(); podId; podId = pending.shift()) {
        await this.reconcile(podId).catch((error: Error) =>
          this.logger.warn(`pod ${podId}: ${error.message}`),
        );
      }
    };
    await Promise.all(Array.from({ length: ADOPT_CONCURRENCY }, worker));
  }

  private async resyncStarting(): Promise<void> {
    try {
      const owned = new Set(this.router?.owned());
      const starting = (await this.pods.listLive()).filter(
        (pod) =>
          (pod.status === PodStatus.Provisioning || pod.status === PodStatus.Starting) &&
          owned.has(partitionOf(pod.id)),
      );
      for (const pod of starting) await this.reconcile(pod.id).catch(() => undefined);
    } catch (error) {
      this.logger.warn(`resync of starting pods failed: ${(error as Error).message}`);
    }
  }

  async release(partitions: number[]): Promise<void> {
    const given = new Set(partitions);
    const leaving = (podId: string) => given.has(partitionOf(podId));
    // Let what is under way finish first: after this, nothing of this replica calls the driver for those pods.
    await Promise.allSettled([...this.queues].filter(([podId]) => leaving(podId)).map(([, queue]) => queue));
    await this.driver.release(leaving);
    await this.logs.release(leaving);
  }

  reconcile(podId: string): Promise<void> {
    const previous = this.queues.get(podId) ?? Promise.resolve();
    // After the previous one whatever its outcome: a refused reconcile must not refuse the ones queued behind it.
    const next = previous.catch(() => undefined).then(() => this.reconcileNow(podId));
    this.queues.set(podId, next);
    void next
      .finally(() => {
        if (this.queues.get(podId) === next) this.queues.delete(podId);
      })
      .catch(() => undefined);
    return next;
  }

  private async reconcileNow(podId: string): Promise<void> {
    // A pod routed here just before this replica gave its partition back: its new owner must do it.
    if (this.router && !this.router.owns(partitionOf(podId))) {
      throw new Error(`this replica no longer drives partition ${partitionOf(podId)}`);
    }
    const pod = await this.pods.findById(podId);
    if (!pod) return;
    try {
      if (isLive(pod.status)) await this.driver.ensureRunning(await this.run(pod));
      else if (pod.status === PodStatus.Terminated) {
        // A load-balancing worker finishes the requests it is answering first (no new ones reach it meanwhile).
        await this.lbWorkers.drain(pod.id);
        await this.driver.remove(pod.id);
        await this.logs.terminated(pod.id, pod.generation);
      } else {
        await this.lbWorkers.drain(pod.id);
        await this.driver.stop(pod.id);
      }
    } catch (error) {
      const reason = `the runtime (${this.driver.name}) failed: ${(error as Error).message}`;
      this.logger.error(`pod ${pod.id}: ${reason}`);
      if (isLive(pod.status)) {
        this.reporter.report({ podId: pod.id, generation: pod.generation, status: PodStatus.Error, reason });
      }
    }
  }

  private async run(pod: PodEntity): Promise<PodRun> {
    return {
      podId: pod.id,
      generation: pod.generation,
      diskEpoch: pod.diskEpoch,
      status: pod.status,
      image: pod.image,
      args: pod.args,
      env: { ...pod.env, ...runtimeEnv(pod) },
      // Still sealed: the driver opens them when it creates the container (or hands them to a Kubernetes Secret).
      secretEnv: sealedSecretEnv(pod.secretEnv, this.workerKeys),
      ports: pod.ports,
      portMappings: pod.portMappings,
      gpuTypeId: pod.gpuTypeId,
      gpuCount: pod.gpuCount,
      hostId: pod.hostId,
      containerDiskGb: pod.containerDiskGb,
      dataCenterId: pod.dataCenterId,
      networkVolumeId: pod.networkVolumeId,
      volumeMountPath: pod.volumeMountPath,
      pullSecret: await this.pullSecret(pod),
    };
  }

  /** The credential to pull with; its password is decrypted only when the driver calls `password()`. */
  private async pullSecret(pod: PodEntity): Promise<PullSecret | null> {
    if (!pod.registryAuthId) return null;
    const credential = await this.registryAuths.findById(pod.registryAuthId);
    if (!credential) return null;
    const box = this.box;
    const sealed = credential.passwordSealed;
    const password = (): string => {
      if (!box) throw new Error('REGISTRY_AUTH_KEYS is not set in pod-lifecycle');
      return box.open(sealed);
    };
    return { registryAuthId: credential.id, username: credential.username, password };
  }
}

/** What the platform tells every container about itself (RunPod's variables). */
export function runtimeEnv(pod: PodEntity): Record<string, string> {
  const env: Record<string, string> = {
    RUNPOD_POD_ID: pod.id,
    RUNPOD_POD_HOSTNAME: pod.id,
    RUNPOD_GPU_COUNT: String(pod.gpuCount),
  };
  if (pod.publicIp) env.RUNPOD_PUBLIC_IP = pod.publicIp;
  if (pod.dataCenterId) env.RUNPOD_DC_ID = pod.dataCenterId;
  if (pod.clusterId) env.RUNPOD_CLUSTER_ID = pod.clusterId;
  if (pod.overlayIp) env.RUNPOD_CLUSTER_IP = pod.overlayIp;
  for (const [spec, publicPort] of Object.entries(pod.portMappings)) {
    const [port, protocol] = spec.split('/');
    if (protocol === 'tcp') env[`RUNPOD_TCP_PORT_${port}`] = String(publicPort);
  }
  // A load-balancing worker always learns its ports: the template's or the endpoint's, else 80 and PORT.
  const lb = lbWorkerPorts(pod.env);
  if (lb) {
    env[LB_WORKER_ENV.port] = String(lb.port);
    env[LB_WORKER_ENV.healthPort] = String(lb.healthPort);
  }
  return env;
}
