import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, Subjects, type TemplateSource } from '@app/contracts';
import { BOB, refusalOf, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { PodLifecycleHandlers } from '../../../../../test/support/pod-lifecycle-handlers.js';

/**
 * `template.qry.catalog` over a catalog file of the test's (CATALOG_TEMPLATES_FILE) beside pod-lifecycle's real
 * schema: one slice of the public catalog, the same for every caller, and never a user's template.
 */

const CATALOG = {
  version: 1,
  templates: [
    { id: 'official-torch', name: 'Torch', imageName: 'runpod/pytorch:2', createdAt: '2026-01-01T00:00:00Z' },
    { id: 'verified-vllm', name: 'vLLM', imageName: 'runpod/vllm:1', source: 'verified' },
    { id: 'official-default', name: 'Default', imageName: 'alpine:3', source: 'official' },
    { id: 'community-comfy', name: 'Comfy', imageName: 'comfy:1', source: 'community', ports: ['8188/http'] },
  ],
};

let directory: string;
let app: PodLifecycleHandlers;
let harness: HandlerHarness;

const catalog = (source: string, actor = {}) => harness.query(Subjects.template.catalog, { source }, actor);
const ids = async (source: TemplateSource) => (await catalog(source)).map((template) => template.id);

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'catalog-templates-'));
  const catalogFile = join(directory, 'catalog.json');
  await writeFile(catalogFile, JSON.stringify(CATALOG));
  app = await PodLifecycleHandlers.start('list_catalog_templates', { catalogFile });
  harness = app.harness;
  await app.createTemplate('a-users-own');
});

afterAll(async () => {
  await app?.stop();
  if (directory) await rm(directory, { recursive: true, force: true });
});

describe('template.qry.catalog', () => {
  it("answers each slice's public templates in the file's order (official when the file names none)", async () => {
    expect(await ids('official')).toEqual(['official-torch', 'official-default']);
    expect(await ids('verified')).toEqual(['verified-vllm']);
    expect(await ids('community')).toEqual(['community-comfy']);
  });

  it('answers every caller the same public, ownerless templates, with their fields and time from the file', async () => {
    const official = await catalog('official');
    expect(official[0]).toMatchObject({
      id: 'official-torch',
      name: 'Torch',
      imageName: 'runpod/pytorch:2',
      isPublic: true,
      userId: null,
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    await expect(catalog('official', { actor: BOB })).resolves.toEqual(official);
    const [comfy] = await catalog('community');
    expect(comfy.ports).toEqual(['8188/http']);
  });

  it('refuses a slice the catalog does not have (422)', async () => {
    expect(await refusalOf(catalog('everything'))).toMatchObject({ code: ErrorCode.ValidationFailed });
  });
});
