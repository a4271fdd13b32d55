import { Module } from '@nestjs/common';
import { LogShipper } from '../logs/log-shipper.js';
import { PodLifecycleConfig } from '../pod-lifecycle.config.js';
import { PersistenceModule } from '../persistence.module.js';
import { LbWorkersProber } from './lb-workers.prober.js';
import { LocalImageCatalog } from './local-image-catalog.js';
import { LocalDriver } from './local.driver.js';
import { InjectGpuFaultHandler } from './inject-gpu-fault/inject-gpu-fault.handler.js';
import { KubeNodeWatchService } from './kube-node-watch.service.js';
import { holdLocalRuntime } from './local-runtime-lock.js';
import { ObservationReporter } from './observation-reporter.js';
import { PodRuntimeReconciler } from './pod-runtime.reconciler.js';
import { ReplayDriver } from './replay.driver.js';
import { RUNTIME_DRIVER, type RuntimeDriver } from './runtime-driver.js';
import { SimulatedDriver } from './simulated.driver.js';

/**
 * Picks the driver named by RUNTIME_DRIVER (none of them in REPLAY_MODE: the observations are replayed). The
 * Kubernetes driver and its client library are imported only when chosen: @kubernetes/client-node alone takes
 * longer to load than the rest of the app's start.
 */
export async function createDriver(
  config: PodLifecycleConfig,
  reporter: ObservationReporter,
  logs: LogShipper,
): Promise<RuntimeDriver> {
  if (config.REPLAY_MODE) return new ReplayDriver();
  const simulated = new SimulatedDriver(
    { provisionMs: config.SIM_PROVISION_MS, startMs: config.SIM_START_MS },
    reporter,
    logs,
  );
  switch (config.RUNTIME_DRIVER) {
    case 'simulated':
      return simulated;
    case 'local':
      return new LocalDriver(
        {
          podsDir: config.LOCAL_PODS_DIR,
          readyMs: config.LOCAL_READY_MS,
          path: config.LOCAL_POD_PATH,
          nodeBinary: process.execPath,
          exclusive: await holdLocalRuntime(config),
        },
        LocalImageCatalog.load(config.LOCAL_IMAGE_CATALOG),
        simulated,
        reporter,
        logs,
      );
    case 'kubernetes': {
      const [client, follower, { KubernetesDriver }] = await Promise.all([
        import('./kubernetes/kubernetes-client.js'),
        import('./kubernetes/kubernetes-logs.js'),
        import('./kubernetes/kubernetes.driver.js'),
      ]);
      const kubeConfig = client.kubernetesConfig(config.KUBE_CONFIG);
      return new KubernetesDriver(
        client.kubernetesCoreApi(kubeConfig),
        {
          namespace: config.KUBE_NAMESPACE,
          dataCenterLabel: config.KUBE_NODE_LABEL_DATA_CENTER,
          gpuTypeLabel: config.KUBE_NODE_LABEL_GPU_TYPE,
          volumeClaimPattern: config.KUBE_VOLUME_CLAIM_PATTERN,
          pinToNode: config.KUBE_NODE_WATCH,
          pollMs: config.KUBE_POLL_MS,
        },
        reporter,
        new follower.KubernetesLogFollower(follower.kubeLogOpener(kubeConfig), logs, config.KUBE_NAMESPACE),
      );
    }
  }
}

@Module({
  imports: [PersistenceModule],
  providers: [
    ObservationReporter,
    LogShipper,
    {
      provide: RUNTIME_DRIVER,
      inject: [PodLifecycleConfig, ObservationReporter, LogShipper],
      useFactory: createDriver,
    },
    LbWorkersProber,
    PodRuntimeReconciler,
    KubeNodeWatchService,
    InjectGpuFaultHandler,
  ],
})
export class RuntimeModule {}
