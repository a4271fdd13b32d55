import { Module } from '@nestjs/common';
import { PodLifecycleConfig } from '../pod-lifecycle.config.js';
import { PersistenceModule } from '../persistence.module.js';
import { LocalImageCatalog } from './local-image-catalog.js';
import { LocalDriver } from './local.driver.js';
import { ObservationReporter } from './observation-reporter.js';
import { kubernetesCoreApi } from './kubernetes/kubernetes-client.js';
import { KubernetesDriver } from './kubernetes/kubernetes.driver.js';
import { PodRuntimeReconciler } from './pod-runtime.reconciler.js';
import { ReplayDriver } from './replay.driver.js';
import { RUNTIME_DRIVER, type RuntimeDriver } from './runtime-driver.js';
import { SimulatedDriver } from './simulated.driver.js';

/** Picks the driver named by RUNTIME_DRIVER (none of them in REPLAY_MODE: the observations are replayed). */
export function createDriver(config: PodLifecycleConfig, reporter: ObservationReporter): RuntimeDriver {
  if (config.REPLAY_MODE) return new ReplayDriver();
  const simulated = new SimulatedDriver(
    { provisionMs: config.SIM_PROVISION_MS, startMs: config.SIM_START_MS },
    reporter,
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
        },
        LocalImageCatalog.load(config.LOCAL_IMAGE_CATALOG),
        simulated,
        reporter,
      );
    case 'kubernetes':
      return new KubernetesDriver(
        kubernetesCoreApi(config.KUBE_CONFIG),
        {
          namespace: config.KUBE_NAMESPACE,
          dataCenterLabel: config.KUBE_NODE_LABEL_DATA_CENTER,
          gpuTypeLabel: config.KUBE_NODE_LABEL_GPU_TYPE,
          volumeClaimPattern: config.KUBE_VOLUME_CLAIM_PATTERN,
          pollMs: config.KUBE_POLL_MS,
        },
        reporter,
      );
  }
}

@Module({
  imports: [PersistenceModule],
  providers: [
    ObservationReporter,
    { provide: RUNTIME_DRIVER, inject: [PodLifecycleConfig, ObservationReporter], useFactory: createDriver },
    PodRuntimeReconciler,
  ],
})
export class RuntimeModule {}
