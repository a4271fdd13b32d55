import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { TemplateList, TemplateSource } from '@app/contracts';
import { api } from '../api';
import { ErrorBox, Loading, Section, WriteOnly } from '../ui';
import { SelectInput } from '../controls';

const SOURCES: readonly { id: TemplateSource; label: string }[] = [
  { id: 'official', label: 'Official' },
  { id: 'verified', label: 'Verified' },
  { id: 'community', label: 'Community' },
];

/**
 * The operator's public templates (`GET /v2/catalog/templates`, docs/adr/0019-public-catalog-templates.md), one
 * slice at a time: read-only, anyone may start from one. A pod template offers a pod made from it; a serverless
 * one is named by its id as an endpoint's template.
 */
export function TemplateCatalog() {
  const [source, setSource] = useState<TemplateSource>('official');
  const catalog = useQuery({
    queryKey: ['catalog-templates', source],
    queryFn: () => api<TemplateList>(`/v2/catalog/templates?source=${source}`),
  });
  return (
    <Section title="Catalog">
      <p className="muted">
        Public templates the platform publishes. Nobody can change them; pods and endpoints made from one copy
        it.
      </p>
      <div className="row filters">
        <SelectInput<TemplateSource> label="Source" value={source} onChange={setSource} options={SOURCES} />
      </div>
      <ErrorBox error={catalog.error} />
      {!catalog.data ? (
        <Loading what="the catalog" />
      ) : catalog.data.templates.length === 0 ? (
        <p className="muted">No {source} templates.</p>
      ) : (
        <table aria-label="Catalog templates">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Id</th>
              <th scope="col">Image</th>
              <th scope="col">Kind</th>
              <th scope="col">Disk (GB)</th>
              <th scope="col">Ports</th>
              <th scope="col">About</th>
              <WriteOnly>
                <th scope="col">
                  <span className="sr-only">Use</span>
                </th>
              </WriteOnly>
            </tr>
          </thead>
          <tbody>
            {catalog.data.templates.map((t) => (
              <tr key={t.id}>
                <th scope="row">{t.name}</th>
                <td>
                  <code>{t.id}</code>
                </td>
                <td>
                  <code>{t.image}</code>
                </td>
                <td>{t.serverless ? 'serverless' : 'pod'}</td>
                <td>{t.disk}</td>
                <td>{t.ports.join(', ') || '—'}</td>
                <td className="readme">{t.readme || '—'}</td>
                <WriteOnly>
                  <td>
                    {t.serverless ? (
                      <span className="muted">An endpoint&apos;s templateId</span>
                    ) : (
                      <a href={`#/pods/new/${t.id}`} aria-label={`Deploy a pod from ${t.name}`}>
                        Deploy a pod
                      </a>
                    )}
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
