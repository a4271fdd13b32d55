import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useQuery } from '@tanstack/react-query';
import type { AuditEntry, AuditPage } from '@app/contracts';
import { api } from '../api';
import { ErrorBox, Loading, Section, when } from '../ui';
import { TextInput } from '../controls';

/** The filters of `GET /v2/audit`, as typed (the gateway checks them and names a bad one). */
interface Filters {
  from: string;
  to: string;
  actor: string;
  action: string;
  resourceType: string;
  resourceId: string;
}

const NONE: Filters = { from: '', to: '', actor: '', action: '', resourceType: '', resourceId: '' };
const LIMIT = 50;

function queryOf(filters: Filters, cursor: string | null): string {
  const query = new URLSearchParams({ limit: String(LIMIT) });
  for (const [name, value] of Object.entries(filters) as [keyof Filters, string][]) {
    if (value.trim()) query.set(name, value.trim());
  }
  if (cursor) query.set('cursor', cursor);
  return query.toString();
}

function actorOf(entry: AuditEntry): string {
  if (entry.actor.kind === 'system') return `system${entry.actor.reason ? `: ${entry.actor.reason}` : ''}`;
  return entry.actor.keyId ? `${entry.actor.userId} (key ${entry.actor.keyId})` : entry.actor.userId;
}

/**
 * The account's audit trail (`/v2/audit`), newest first: who did what, when, and whether it was refused. The
 * filters apply when "Apply" is pressed; "Older" follows the page's cursor, "Newest" goes back to the first page.
 */
export function AuditPage() {
  const [draft, setDraft] = useState<Filters>(NONE);
  const [filters, setFilters] = useState<Filters>(NONE);
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1) ?? null;
  const query = queryOf(filters, cursor);
  const page = useQuery({
    queryKey: ['audit', query],
    queryFn: () => api<AuditPage>(`/v2/audit?${query}`),
    refetchInterval: cursor ? false : 15_000,
  });
  const field = (name: keyof Filters, label: string, hint?: string) => (
    <TextInput
      label={label}
      hint={hint}
      value={draft[name]}
      onChange={(value) => setDraft({ ...draft, [name]: value })}
    />
  );
  return (
    <Section title="Audit trail">
      <form
        className="row filters"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(draft);
          setCursors([]);
        }}
      >
        {field('from', 'From', 'RFC 3339, e.g. 2026-12-01T00:00:00Z')}
        {field('to', 'To')}
        {field('actor', 'Actor', 'a user id')}
        {field('action', 'Action', 'e.g. pod.create, team.add-member')}
        {field('resourceType', 'Resource type', 'pod, endpoint, team, worker, …')}
        {field('resourceId', 'Resource id')}
        <Button type="submit" className="secondary">
          Apply
        </Button>
      </form>
      <ErrorBox error={page.error} />
      {!page.data ? (
        page.error ? null : (
          <Loading what="the audit trail" />
        )
      ) : page.data.entries.length === 0 ? (
        <p className="muted">No entries match.</p>
      ) : (
        <table aria-label="Audit entries">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Actor</th>
              <th scope="col">Action</th>
              <th scope="col">Resource</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {page.data.entries.map((e) => (
              <tr key={e.id}>
                <td>{when(e.at)}</td>
                <td>{actorOf(e)}</td>
                <td>
                  <code>{e.action}</code>
                </td>
                <td>
                  {e.resourceType} {e.resourceId && <code>{e.resourceId}</code>}
                </td>
                <td>{e.outcome.ok ? 'ok' : `refused: ${e.outcome.code} (${e.outcome.message})`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="row">
        {cursors.length > 0 && (
          <Button className="secondary" onPress={() => setCursors([])}>
            Newest
          </Button>
        )}
        {page.data?.nextCursor && (
          <Button className="secondary" onPress={() => setCursors([...cursors, page.data.nextCursor!])}>
            Older
          </Button>
        )}
      </div>
    </Section>
  );
}
