import { useState, type FormEvent } from 'react';
import { Button } from 'react-aria-components';
import type { TemplateV2View } from '@app/contracts';
import { api } from '../api';
import { ErrorBox, useAction } from '../ui';
import { TemplateFields, draftOf, parseEnv, parseList, type TemplateDraft } from './template-fields';

/**
 * The body of `PATCH /v2/templates/{id}`: only what the form changed (the API changes only the fields present),
 * so an env left alone is not sent back and a credential left alone is not checked again.
 */
export function changesOf(before: TemplateDraft, after: TemplateDraft): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (after.name !== before.name) body.name = after.name;
  if (after.image !== before.image) body.image = after.image;
  if (after.disk !== before.disk) body.disk = after.disk;
  if (after.ports !== before.ports) body.ports = parseList(after.ports);
  if (after.env !== before.env) body.env = parseEnv(after.env);
  if (after.registry !== before.registry) body.registry = after.registry || null;
  if (after.serverless !== before.serverless) body.serverless = after.serverless;
  return body;
}

/**
 * A template's edit form (in the dialog its row's Edit button opens): the API's refusal stays in the form, a save
 * closes it. Pods and endpoints made from the template keep what they copied.
 */
export function EditTemplate({ template, onDone }: { template: TemplateV2View; onDone: () => void }) {
  const [before] = useState(() => draftOf(template));
  const [draft, setDraft] = useState(before);
  const save = useAction(
    (body: Record<string, unknown>) =>
      api<TemplateV2View>(`/v2/templates/${template.id}`, { method: 'PATCH', body }),
    [['templates']],
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = changesOf(before, draft);
    if (Object.keys(body).length === 0) return onDone();
    save.mutate(body, { onSuccess: onDone });
  };
  return (
    <form onSubmit={submit} className="grid-form">
      <p className="muted">Pods and endpoints already made from it keep what they copied.</p>
      <TemplateFields draft={draft} onChange={setDraft} idPrefix={`edit-${template.id}`} />
      <ErrorBox error={save.error} />
      <div className="row">
        <Button className="secondary" onPress={onDone}>
          Cancel
        </Button>
        <Button type="submit" isDisabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save template'}
        </Button>
      </div>
    </form>
  );
}
