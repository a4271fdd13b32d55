import { describe, expect, it } from '@jest/globals';
import { LocalImageCatalog } from './local-image-catalog.js';

describe('LocalImageCatalog', () => {
  const catalog = LocalImageCatalog.parse({
    images: { 'local/a': { command: ['sh', '-c', '{args}'] }, 'local/b:1': { command: ['{node}', 'x.js'] } },
  });

  it('matches exact names and :latest either way', () => {
    expect(catalog.lookup('local/a')).not.toBeNull();
    expect(catalog.lookup('local/a:latest')).not.toBeNull();
    expect(catalog.lookup('local/b:1')).not.toBeNull();
    expect(catalog.lookup('local/b')).toBeNull();
    expect(catalog.lookup('docker.io/library/ubuntu')).toBeNull();
  });

  it('fills in the tokens', () => {
    expect(LocalImageCatalog.argv(catalog.lookup('local/a')!, 'echo hi', '/n')).toEqual([
      'sh',
      '-c',
      'echo hi',
    ]);
    expect(LocalImageCatalog.argv(catalog.lookup('local/b:1')!, null, '/n')).toEqual(['/n', 'x.js']);
  });

  it('rejects a malformed catalog with a line saying what is wrong', () => {
    expect(() => LocalImageCatalog.parse({ images: { x: { command: [] } } })).toThrow(
      'image x needs "command": a non-empty array of strings',
    );
    expect(() => LocalImageCatalog.parse([])).toThrow('expected {"images"');
  });

  it('ships a default catalog that parses', () => {
    const shipped = LocalImageCatalog.load('apps/pod-lifecycle/local-images.json');
    expect(shipped.lookup('local/sleeper')).not.toBeNull();
  });
});
