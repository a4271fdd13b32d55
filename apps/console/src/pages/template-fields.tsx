import { useQuery } from '@tanstack/react-query';
import type { DEFAULT_CONTAINER_DISK_GB, RegistryList, TemplateV2View } from '@app/contracts';
import { api } from '../api';
import { EnvField, Field, PortsField } from '../ui';
import { TextInput } from '../controls';

/**
 * The API's container disk default (pod-lifecycle applies the contracts' constant to a template created without
 * one). The console takes only types from the contracts, so the value is written again here, pinned to the
 * constant's literal type: changed there, this line fails the console's type-check until it follows.
 */
export const DEFAULT_DISK_GB: typeof DEFAULT_CONTAINER_DISK_GB = 20;

/** `KEY=value` lines → an env object (blank lines skipped). */
export function parseEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf('=');
    env[eq < 0 ? trimmed : trimmed.slice(0, eq)] = eq < 0 ? '' : trimmed.slice(eq + 1);
  }
  return env;
}

export function parseList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A template's fields as the form holds them: ports comma-separated, env one KEY=value a line. */
export interface TemplateDraft {
  name: string;
  image: string;
  disk: number;
  ports: string;
  env: string;
  registry: string;
  serverless: boolean;
}

export const EMPTY_DRAFT: TemplateDraft = {
  name: '',
  image: '',
  disk: DEFAULT_DISK_GB,
  ports: '',
  env: '',
  registry: '',
  serverless: false,
};

/** A template as the form shows it (secret-looking env values come masked, and go back masked: the API keeps them). */
export function draftOf(template: TemplateV2View): TemplateDraft {
  return {
    name: template.name,
    image: template.image,
    disk: template.disk,
    ports: template.ports.join(', '),
    env: Object.entries(template.env)
      .map(([key, value]) => `${key}=${value}`)
      .join('\n'),
    registry: template.registry ?? '',
    serverless: template.serverless,
  };
}

/** The fields of the template form, shared by create and edit; `idPrefix` keeps the checkbox's id unique. */
export function TemplateFields({
  draft,
  onChange,
  idPrefix,
}: {
  draft: TemplateDraft;
  onChange: (draft: TemplateDraft) => void;
  idPrefix: string;
}) {
  const registries = useQuery({
    queryKey: ['registries'],
    queryFn: () => api<RegistryList>('/v2/registries'),
  });
  const set = <K extends keyof TemplateDraft>(key: K) => {
    return (value: TemplateDraft[K]) => onChange({ ...draft, [key]: value });
  };
  return (
    <>
      <TextInput label="Name" value={draft.name} onChange={set('name')} />
      <TextInput label="Image" placeholder="repo/image:tag" value={draft.image} onChange={set('image')} />
      <Field label="Container disk (GB)">
        {(id) => (
          <input
            id={id}
            type="number"
            min={1}
            value={draft.disk}
            onChange={(e) => set('disk')(Number(e.target.value))}
          />
        )}
      </Field>
      <PortsField value={draft.ports} onChange={set('ports')} />
      <EnvField value={draft.env} onChange={set('env')} />
      <Field label="Registry credential">
        {(id) => (
          <select id={id} value={draft.registry} onChange={(e) => set('registry')(e.target.value)}>
            <option value="">None (public image)</option>
            {registries.data?.registries.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div className="field checkbox">
        <input
          id={`${idPrefix}-serverless`}
          type="checkbox"
          checked={draft.serverless}
          onChange={(e) => set('serverless')(e.target.checked)}
        />
        <label htmlFor={`${idPrefix}-serverless`}>Serverless (for endpoints)</label>
      </div>
    </>
  );
}
