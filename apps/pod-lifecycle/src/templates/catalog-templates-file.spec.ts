import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCatalogTemplates } from './catalog-templates-file.js';

const file = (templates: unknown[]) => JSON.stringify({ version: 1, templates });

describe('catalog templates file', () => {
  it('accepts the file shipped as the default', () => {
    const path = join(import.meta.dirname, '../../catalog-templates.json');
    const entries = parseCatalogTemplates(readFileSync(path, 'utf8'), path);
    expect(entries.map((e) => e.id)).toEqual([
      'runpod-ubuntu',
      'runpod-torch-v280',
      'runpod-torch-v21',
      'runpod-worker-vllm',
    ]);
  });

  it('takes the fields of a v1 template create, an id, a source and a publication date', () => {
    const [entry] = parseCatalogTemplates(
      file([
        {
          id: 'a-b',
          name: 'A',
          imageName: 'img:1',
          dockerArgs: 'serve',
          ports: ['80/http'],
          env: { K: 'v' },
          containerDiskInGb: 5,
          volumeMountPath: '/workspace',
          isServerless: true,
          readme: 'r',
          source: 'community',
          createdAt: '2026-05-01T00:00:00Z',
        },
      ]),
      'f.json',
    );
    expect(entry).toMatchObject({ id: 'a-b', source: 'community', isServerless: true, containerDiskInGb: 5 });
  });

  it('names every fault and the file', () => {
    const parse = (templates: unknown[]) => () => parseCatalogTemplates(file(templates), 'f.json');
    // An id without a dash could be a user's template id (derived ids have none).
    expect(parse([{ id: 'single', name: 'A', imageName: 'i' }])).toThrow(/f\.json is invalid: .*id must be/);
    expect(parse([{ id: 'a-b', name: 'A', imageName: 'i', public: true }])).toThrow(
      /public should not exist/,
    );
    expect(parse([{ id: 'a-b', name: 'A', imageName: 'i', ports: ['80'] }])).toThrow(/port/);
    expect(
      parse([
        { id: 'a-b', name: 'A', imageName: 'i' },
        { id: 'a-b', name: 'B', imageName: 'i', containerRegistryAuthId: 'r1' },
      ]),
    ).toThrow('template a-b appears twice; template a-b: containerRegistryAuthId is not allowed');
    expect(() => parseCatalogTemplates('{', 'f.json')).toThrow(/f\.json is not JSON/);
    expect(() => parseCatalogTemplates('{"version": 2, "templates": []}', 'f.json')).toThrow(/version/);
  });
});
