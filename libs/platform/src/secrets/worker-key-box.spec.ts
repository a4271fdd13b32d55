import { describe, expect, it } from '@jest/globals';
import { SecretBox } from './secret-box.js';
import { WorkerKeyBox } from './worker-key-box.js';

describe('WorkerKeyBox', () => {
  const registry = SecretBox.generateKey('reg1');
  const worker = SecretBox.generateKey('wk1');

  it('seals a new worker key with the worker ring (its key id), bound to the endpoint', () => {
    const box = new WorkerKeyBox(worker, registry);
    const sealed = box.seal('rpa_secret', 'ep-1');
    expect(sealed).toMatch(/^v1\.wk1\./);
    expect(sealed).not.toContain('rpa_secret');
    expect(box.ringNameOf(sealed)).toBe('worker');
    expect(box.open(sealed, 'ep-1')).toBe('rpa_secret');
    expect(() => box.open(sealed, 'ep-2')).toThrow();
  });

  it('still opens a key sealed with the registry ring before the split (legacy), and never seals with it', () => {
    const legacy = new SecretBox(registry).seal('rpa_old', 'ep-1');
    const box = new WorkerKeyBox(worker, registry);
    expect(box.ringNameOf(legacy)).toBe('legacy');
    expect(box.open(legacy, 'ep-1')).toBe('rpa_old');
    expect(box.seal('rpa_new', 'ep-1')).toMatch(/^v1\.wk1\./);
  });

  it('opens by the key id a value names: the registry ring does not open a worker-ring key', () => {
    const sealed = new WorkerKeyBox(worker, registry).seal('rpa_secret', 'ep-1');
    expect(() => new WorkerKeyBox(undefined, registry).open(sealed, 'ep-1')).toThrow(
      'cannot open sealed worker key (key wk1 is in neither WORKER_KEY_RING nor REGISTRY_AUTH_KEYS)',
    );
  });

  it('opens after the worker ring rotates (the old worker key id kept behind the new one)', () => {
    const old = new WorkerKeyBox(worker, registry).seal('rpa_secret', 'ep-1');
    const rotated = new WorkerKeyBox(`${SecretBox.generateKey('wk2')},${worker}`, registry);
    expect(rotated.open(old, 'ep-1')).toBe('rpa_secret');
    expect(rotated.seal('x', 'ep-1')).toMatch(/^v1\.wk2\./);
  });

  it('refuses rings that share a key id, and a seal without a worker ring', () => {
    expect(() => new WorkerKeyBox(SecretBox.generateKey('reg1'), registry)).toThrow(
      'WORKER_KEY_RING and REGISTRY_AUTH_KEYS share key id(s) reg1',
    );
    expect(() => new WorkerKeyBox(undefined, registry).seal('x', 'ep-1')).toThrow(
      'WORKER_KEY_RING is not set',
    );
    expect(() => new WorkerKeyBox(undefined, undefined).open('v1.wk1.a.b.c', 'ep-1')).toThrow(
      'WORKER_KEY_RING is not set',
    );
  });
});
