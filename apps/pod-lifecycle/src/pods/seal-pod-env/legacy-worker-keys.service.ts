import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { Subjects, deriveId, type Actor } from '@app/contracts';
import { CommandBus } from '@app/messaging';
import { WorkerKeyBox } from '@app/platform';
import { PodLifecycleConfig } from '../../pod-lifecycle.config.js';
import type { PodEntity } from '../pod.entity.js';
import { PodRepository } from '../pod.repository.js';

export const WORKER_KEY_ENV = 'RUNPOD_AI_API_KEY';

const ACTOR: Actor = { userId: 'system:pod-lifecycle', kind: 'system' };

/**
 * Whether a pod is a serverless worker the autoscaler created before worker keys were sealed: its env has the key
 * in clear next to the worker variables only the autoscaler writes (the ping URL of its own endpoint, with the
 * literal `$RUNPOD_POD_ID` the worker SDKs substitute). A user's own pod setting RUNPOD_AI_API_KEY is left alone.
 */
export function isLegacyWorker(pod: Pick<PodEntity, 'env' | 'secretEnv'>): boolean {
  const { env } = pod;
  const endpointId = env.RUNPOD_ENDPOINT_ID;
  return (
    typeof env[WORKER_KEY_ENV] === 'string' &&
    !(WORKER_KEY_ENV in pod.secretEnv) &&
    !!endpointId &&
    (env.RUNPOD_WEBHOOK_PING ?? '').endsWith(`/v2/${endpointId}/ping/$RUNPOD_POD_ID`)
  );
}

/**
 * At boot (not in REPLAY_MODE), seals the workers' keys that older releases stored in clear in `pods.env`: one
 * recorded `pod.cmd.seal-env` per such pod (sealed here, bound to the pod id; the command id derives from the pod,
 * so a second boot before it was applied records nothing new). Best effort: a failure is logged and retried at the
 * next boot. The commands recorded by older releases keep their clear values (docs/adr/0015).
 */
@Injectable()
export class LegacyWorkerKeys implements OnApplicationBootstrap {
  private readonly logger = new Logger('legacy-worker-keys');

  constructor(
    private readonly pods: PodRepository,
    private readonly commands: CommandBus,
    private readonly config: PodLifecycleConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.REPLAY_MODE) return;
    void this.sealAll().catch((error: Error) =>
      this.logger.warn(
        `sealing workers' keys stored in clear failed (retried at the next boot): ${error.message}`,
      ),
    );
  }

  async sealAll(): Promise<number> {
    const legacy = (await this.pods.listWithEnvVar(WORKER_KEY_ENV)).filter(isLegacyWorker);
    if (!legacy.length) return 0;
    if (!this.config.WORKER_KEY_RING) {
      this.logger.warn(`${legacy.length} worker pod(s) keep ${WORKER_KEY_ENV} in clear: set WORKER_KEY_RING`);
      return 0;
    }
    // Sealed with the workers' own ring, as the gateway seals the keys it mints now (ADR 30).
    const box = new WorkerKeyBox(this.config.WORKER_KEY_RING, this.config.REGISTRY_AUTH_KEYS);
    for (const pod of legacy) {
      const secretEnv = {
        [WORKER_KEY_ENV]: { sealed: box.seal(pod.env[WORKER_KEY_ENV], pod.id), context: pod.id },
      };
      await this.commands.record(
        this.commands.envelope(
          Subjects.pod.sealEnv,
          { podId: pod.id, secretEnv },
          ACTOR,
          deriveId(pod.id, `seal-env/${WORKER_KEY_ENV}`),
        ),
      );
    }
    this.logger.log(
      `recorded pod.cmd.seal-env for ${legacy.length} worker pod(s) created before keys were sealed`,
    );
    return legacy.length;
  }
}
