import { useState, type FormEvent } from 'react';
import { Button, DialogTrigger, Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { useQuery } from '@tanstack/react-query';
import type { TemplateList, TemplateV2View } from '@app/contracts';
import { api } from '../api';
import { ErrorBox, Loading, Section, WriteOnly, useAction, when } from '../ui';
import { ConfirmButton, ModalDialog } from '../controls';
import { TemplateCatalog } from './template-catalog';
import { EditTemplate } from './template-edit';
import { EMPTY_DRAFT, TemplateFields, parseEnv, parseList } from './template-fields';

// Pods, clusters and endpoints read their env and ports fields the templates' way.
export { parseEnv, parseList } from './template-fields';

/** The caller's templates (`#/templates`) and the operator's public catalog (`#/templates/catalog`), as tabs. */
export function TemplatesPage({ route }: { route: string[] }) {
  const tab = route[0] === 'catalog' ? 'catalog' : 'yours';
  return (
    <Tabs
      selectedKey={tab}
      onSelectionChange={(key) => {
        window.location.hash = key === 'catalog' ? '#/templates/catalog' : '#/templates';
      }}
    >
      <TabList aria-label="Templates" className="tabs">
        <Tab id="yours" className="tab">
          Your templates
        </Tab>
        <Tab id="catalog" className="tab">
          Catalog
        </Tab>
      </TabList>
      <TabPanel id="yours">
        <WriteOnly>
          <CreateTemplate />
        </WriteOnly>
        <YourTemplates />
      </TabPanel>
      <TabPanel id="catalog">
        <TemplateCatalog />
      </TabPanel>
    </Tabs>
  );
}

function YourTemplates() {
  const templates = useQuery({ queryKey: ['templates'], queryFn: () => api<TemplateList>('/v2/templates') });
  const remove = useAction(
    (id: string) => api<void>(`/v2/templates/${id}`, { method: 'DELETE' }),
    [['templates']],
  );
  return (
    <Section title="Templates">
      <ErrorBox error={templates.error ?? remove.error} />
      {!templates.data ? (
        <Loading what="templates" />
      ) : templates.data.templates.length === 0 ? (
        <p className="muted">No templates yet.</p>
      ) : (
        <table aria-label="Your templates">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Image</th>
              <th scope="col">Kind</th>
              <th scope="col">Disk (GB)</th>
              <th scope="col">Ports</th>
              <th scope="col">Created</th>
              <WriteOnly>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </WriteOnly>
            </tr>
          </thead>
          <tbody>
            {templates.data.templates.map((t) => (
              <tr key={t.id}>
                <th scope="row">{t.name}</th>
                <td>
                  <code>{t.image}</code>
                </td>
                <td>{t.serverless ? 'serverless' : 'pod'}</td>
                <td>{t.disk}</td>
                <td>{t.ports.join(', ') || '—'}</td>
                <td>{when(t.createdAt)}</td>
                <WriteOnly>
                  <td>
                    <div className="row">
                      <EditButton template={t} />
                      <ConfirmButton
                        small
                        label="Delete"
                        accessibleLabel={`Delete template ${t.name}`}
                        title={`Delete template ${t.name}?`}
                        question="Pods and endpoints made from it keep running; it can no longer be chosen."
                        pending={remove.isPending && remove.variables === t.id}
                        onConfirm={() => remove.mutate(t.id)}
                      />
                    </div>
                  </td>
                </WriteOnly>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

/** Opens the template's edit form in a dialog (focus kept inside, Escape closes it). */
function EditButton({ template }: { template: TemplateV2View }) {
  return (
    <DialogTrigger>
      <Button className="secondary small" aria-label={`Edit template ${template.name}`}>
        Edit
      </Button>
      <ModalDialog title={`Edit template ${template.name}`}>
        {(close) => <EditTemplate template={template} onDone={close} />}
      </ModalDialog>
    </DialogTrigger>
  );
}

function CreateTemplate() {
  const [draft, setDraft] = useState(EMPTY_DRAFT);
  const create = useAction(
    () =>
      api<TemplateV2View>('/v2/templates', {
        method: 'POST',
        body: {
          name: draft.name,
          image: draft.image,
          serverless: draft.serverless,
          disk: draft.disk,
          ports: parseList(draft.ports),
          env: parseEnv(draft.env),
          ...(draft.registry ? { registry: draft.registry } : {}),
        },
      }),
    [['templates']],
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(undefined, { onSuccess: () => setDraft({ ...draft, name: '', image: '' }) });
  };
  return (
    <Section title="New template">
      <form onSubmit={submit} className="grid-form">
        <TemplateFields draft={draft} onChange={setDraft} idPrefix="new-template" />
        <ErrorBox error={create.error} />
        <Button type="submit" isDisabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create template'}
        </Button>
        {create.isSuccess && <p role="status">Template {create.data.name} created.</p>}
      </form>
    </Section>
  );
}
