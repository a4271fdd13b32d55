import { createServer } from 'node:net';
import { LB_WORKER_ENV, lbWorkerPorts } from '@app/contracts';
import type { LbWorkerAddress, PodRun } from './runtime-driver.js';

/** Where a load-balancing worker of the local runtime listens: its environment's ports and its address. */
export interface LocalLbPorts {
  env: Record<string, string>;
  address: LbWorkerAddress;
}

/**
 * A load-balancing worker listens on PORT (and PORT_HEALTH) of this machine, where every pod shares one network:
 * each gets free loopback ports of its own in place of the ones its env names (the same port twice when
 * PORT_HEALTH was PORT). Null for any other pod.
 */
export async function localLbPorts(run: PodRun): Promise<LocalLbPorts | null> {
  const ports = lbWorkerPorts(run.env);
  const endpointId = run.env.RUNPOD_ENDPOINT_ID;
  if (!ports || !endpointId) return null;
  const port = await freePort();
  const healthPort = ports.healthPort === ports.port ? port : await freePort();
  return {
    env: { [LB_WORKER_ENV.port]: String(port), [LB_WORKER_ENV.healthPort]: String(healthPort) },
    address: {
      podId: run.podId,
      generation: run.generation,
      endpointId,
      url: `http://127.0.0.1:${port}`,
      healthUrl: `http://127.0.0.1:${healthPort}`,
    },
  };
}

/** A TCP port free on the loopback interface now (the kernel's pick). */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}
