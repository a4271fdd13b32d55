import { SecretBox } from './secret-box.js';

/**
 * The workers' API keys (RUNPOD_AI_API_KEY, minted by the gateway for an endpoint's workers), under a key ring of
 * their own, WORKER_KEY_RING, apart from the one sealing registry passwords and webhook secrets (ADR 30).
 *
 * A new key is sealed with the worker ring. A sealed key is opened by the ring its key id belongs to: the worker
 * ring's, or, for a key sealed before the rings were split, the registry ring's (REGISTRY_AUTH_KEYS), which keeps
 * opening the keys already stored in endpoints and worker pods. The two rings share no key id (checked at boot,
 * `KeyIdsApartFrom`, and again here), so the id a sealed value names picks exactly one ring.
 */
export class WorkerKeyBox {
  private readonly worker: SecretBox | null;
  private readonly registry: SecretBox | null;

  constructor(workerRing: string | undefined, registryRing: string | undefined) {
    this.worker = workerRing ? new SecretBox(workerRing) : null;
    this.registry = registryRing ? new SecretBox(registryRing) : null;
    const shared = this.worker?.keyIds().filter((kid) => this.registry?.keyIds().includes(kid)) ?? [];
    if (shared.length) {
      throw new Error(`WORKER_KEY_RING and REGISTRY_AUTH_KEYS share key id(s) ${shared.join(', ')}`);
    }
  }

  /** Seals a new worker key for `endpointId` (associated data) with the worker ring's first key. */
  seal(key: string, endpointId: string): string {
    if (!this.worker) throw new Error('WORKER_KEY_RING is not set');
    return this.worker.seal(key, endpointId);
  }

  /** Opens a sealed worker key with the ring its key id belongs to; the error names the key id, never a value. */
  open(sealed: string, endpointId: string): string {
    return this.ringOf(sealed).open(sealed, endpointId);
  }

  /**
   * Which ring opens `sealed`: `legacy` for a key sealed with the registry ring before the split (still opened,
   * never sealed anew). Throws when neither ring holds its key id.
   */
  ringNameOf(sealed: string): 'worker' | 'legacy' {
    return this.ringOf(sealed) === this.worker ? 'worker' : 'legacy';
  }

  private ringOf(sealed: string): SecretBox {
    if (this.worker?.holds(sealed)) return this.worker;
    if (this.registry?.holds(sealed)) return this.registry;
    const kid = sealed.split('.')[1] ?? '?';
    throw new Error(
      this.worker || this.registry
        ? `cannot open sealed worker key (key ${kid} is in neither WORKER_KEY_RING nor REGISTRY_AUTH_KEYS)`
        : 'cannot open sealed worker key: WORKER_KEY_RING is not set',
    );
  }
}
