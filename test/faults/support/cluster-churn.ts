import { A100, type FaultSystem } from './fault-system.js';
import { call, sleep } from './fault-calls.js';

export interface ClusterAttempt {
  status: number;
  id?: string;
}

/**
 * Creates clusters one after the other; each is deleted once the next one is created, so GPUs are taken and given
 * back throughout the phase and the fleet never stays full.
 */
export async function clusterChurn(
  fs: FaultSystem,
  phase: string,
  gateway: string,
  attempts: ClusterAttempt[],
  creates: number,
): Promise<void> {
  let previous: ClusterAttempt | undefined;
  const remove = async (attempt: ClusterAttempt | undefined) => {
    if (attempt?.status !== 201) return;
    // Its answer may be lost with a killed gateway; the delete is then applied or not: both are fine.
    await call('DELETE', `${gateway}/v2/clusters/${attempt.id}`, fs.user.key, undefined, 60_000);
  };
  for (let i = 0; i < creates; i++) {
    const created = await call(
      'POST',
      `${gateway}/v2/clusters`,
      fs.user.key,
      {
        name: `${phase}-${i}`,
        type: 'TRAINING',
        compute: { gpuTypeId: A100, gpuCountPerPod: 1 + (i % 2), podCount: 2 },
      },
      60_000,
    );
    const attempt: ClusterAttempt = { status: created.status, id: created.body?.id as string | undefined };
    attempts.push(attempt);
    await remove(previous);
    previous = attempt;
    await sleep(300);
  }
  await remove(previous);
}
