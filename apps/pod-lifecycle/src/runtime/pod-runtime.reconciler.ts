import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { PodStatus, Subjects, type PodStatusChangedEvent } from '@app/contracts';
import { EventHandler, type EventContext } from '@app/messaging';
import { SecretBox } from '@app/platform';
import type { EntityManager } from 'typeorm';
import { PodLifecycleConfig } from '../pod-lifecycle.config.js';
import type { PodEntity } from '../pods/pod.entity.js';
import { PodRepository } from '../pods/pod.repository.js';
import { isLive } from '../pods/pod-status-machine.js';
import { RegistryAuthRepository } from '../registry-auth/registry-auth.repository.js';
import { ObservationReporter } from './observation-reporter.js';
import { RUNTIME_DRIVER, type PodRun, type PullSecret, type RuntimeDriver } from './runtime-driver.js';
import { sealedSecretEnv } from './sealed-secret-env.js';

/**
 * Keeps the runtime in line with the pods' statuses. It follows pod-lifecycle's own `pod.evt.status-changed`
 * events (published after the status change committed) and, at boot, every live pod; each time it reads the
 * pod's current row (a stale event just re-applies the current state) and tells the driver: live → ensure run
 * `generation` runs; EXITED or ERROR → stop, keep the disk; TERMINATED → remove. Driver failures become ERROR
 * observations, never retried events.
 */
@Injectable()
export class PodRuntimeReconciler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('runtime');
  private readonly box: SecretBox | null;

  constructor(
    @Inject(RUNTIME_DRIVER) private readonly driver: RuntimeDriver,
    private readonly pods: PodRepository,
    private readonly registryAuths: RegistryAuthRepository,
    private readonly reporter: ObservationReporter,
    config: PodLifecycleConfig,
  ) {
    this.box = config.REGISTRY_AUTH_KEYS ? new SecretBox(config.REGISTRY_AUTH_KEYS) : null;
  }

  async onApplicationBootstrap(): Promise<void> {
    this.logger.log(`runtime driver: ${this.driver.name}`);
    for (const pod of await this.pods.listLive()) await this.reconcile(pod);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.driver.shutdown();
    await this.reporter.flush();
  }

  @EventHandler(Subjects.pod.statusChanged)
  async onStatusChanged(ctx: EventContext<PodStatusChangedEvent>): Promise<void> {
    const pod = await this.pods.findById(ctx.event.payload.podId, ctx.manager);
    if (pod) await this.reconcile(pod, ctx.manager);
  }

  private async reconcile(pod: PodEntity, manager?: EntityManager): Promise<void> {
    try {
      if (isLive(pod.status)) await this.driver.ensureRunning(await this.run(pod, manager));
      else if (pod.status === PodStatus.Terminated) await this.driver.remove(pod.id);
      else await this.driver.stop(pod.id);
    } catch (error) {
      const reason = `the runtime (${this.driver.name}) failed: ${(error as Error).message}`;
      this.logger.error(`pod ${pod.id}: ${reason}`);
      if (isLive(pod.status)) {
        this.reporter.report({ podId: pod.id, generation: pod.generation, status: PodStatus.Error, reason });
      }
    }
  }

  private async run(pod: PodEntity, manager?: EntityManager): Promise<PodRun> {
    return {
      podId: pod.id,
      generation: pod.generation,
      diskEpoch: pod.diskEpoch,
      status: pod.status,
      image: pod.image,
      args: pod.args,
      env: { ...pod.env, ...runtimeEnv(pod) },
      // Still sealed: the driver opens them when it creates the container (or hands them to a Kubernetes Secret).
      secretEnv: sealedSecretEnv(pod.secretEnv, this.box),
      ports: pod.ports,
      portMappings: pod.portMappings,
      gpuTypeId: pod.gpuTypeId,
      gpuCount: pod.gpuCount,
      hostId: pod.hostId,
      containerDiskGb: pod.containerDiskGb,
      dataCenterId: pod.dataCenterId,
      networkVolumeId: pod.networkVolumeId,
      volumeMountPath: pod.volumeMountPath,
      pullSecret: await this.pullSecret(pod, manager),
    };
  }

  /** The credential to pull with; its password is decrypted only when the driver calls `password()`. */
  private async pullSecret(pod: PodEntity, manager?: EntityManager): Promise<PullSecret | null> {
    if (!pod.registryAuthId) return null;
    const credential = await this.registryAuths.findById(pod.registryAuthId, manager);
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
  return env;
}
