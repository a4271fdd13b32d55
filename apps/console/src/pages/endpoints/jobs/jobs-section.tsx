import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useQuery } from '@tanstack/react-query';
import type { JobPage, JobStatus, JobSummaryView, PayloadPreview } from '@app/contracts';
import { api } from '../../../api';
import { SelectInput } from '../../../controls';
import { ErrorBox, Loading, Section, StatusBadge, when } from '../../../ui';

// The statuses of the API's `status` filter (the console imports only types from the contracts).
const JOB_STATUSES: readonly JobStatus[] = [
  'IN_QUEUE',
  'IN_PROGRESS',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'TIMED_OUT',
];
type StatusFilter = 'ALL' | JobStatus;
const STATUS_OPTIONS: { id: StatusFilter; label: string }[] = [
  { id: 'ALL', label: 'Any status' },
  ...JOB_STATUSES.map((s) => ({ id: s, label: s })),
];

const WINDOWS = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, all: 0 } as const;
type Window = keyof typeof WINDOWS;
const WINDOW_OPTIONS: { id: Window; label: string }[] = [
  { id: '1h', label: 'Last hour' },
  { id: '24h', label: 'Last 24 hours' },
  { id: '7d', label: 'Last 7 days' },
  { id: 'all', label: 'Everything kept' },
];

const PAGE = 25;

/** A duration in ms for people: 850 ms, 2.4 s, 3 min 5 s. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function bytes(n: number | null): string {
  if (n === null) return '—';
  return n < 1024
    ? `${n} B`
    : n < 1024 * 1024
      ? `${(n / 1024).toFixed(1)} KB`
      : `${(n / 1048576).toFixed(1)} MB`;
}

function Preview({ value, size }: { value: PayloadPreview | null; size: number | null }) {
  if (value) {
    return (
      <code title={`${bytes(value.bytes)}${value.truncated ? ', cut' : ''}`}>
        {value.preview}
        {value.truncated && '…'}
      </code>
    );
  }
  return <span className="muted">{size === null ? '—' : `${bytes(size)}, expired`}</span>;
}

/**
 * The endpoint's jobs (GET /v2/serverless/{id}/jobs), newest first, refreshed every 3 s: the test jobs of "Run job"
 * appear here and stay after the page is left. Each links to its detail page.
 */
export function Jobs({ id }: { id: string }) {
  const [status, setStatus] = useState<StatusFilter>('ALL');
  const [window, setWindow] = useState<Window>('24h');
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const jobs = useQuery({
    queryKey: ['endpoint', id, 'jobs', status, window, cursor ?? ''],
    queryFn: () => {
      const query = new URLSearchParams({ limit: String(PAGE) });
      if (status !== 'ALL') query.set('status', status);
      if (WINDOWS[window]) query.set('from', new Date(Date.now() - WINDOWS[window]).toISOString());
      if (cursor) query.set('cursor', cursor);
      return api<JobPage>(`/v2/serverless/${id}/jobs?${query.toString()}`);
    },
    refetchInterval: 3000,
  });
  const filter =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value);
      setCursors([]);
    };
  return (
    <Section title="Jobs">
      <div className="row filters">
        <SelectInput label="Status" value={status} onChange={filter(setStatus)} options={STATUS_OPTIONS} />
        <SelectInput label="Created" value={window} onChange={filter(setWindow)} options={WINDOW_OPTIONS} />
      </div>
      <ErrorBox error={jobs.error} />
      {!jobs.data ? (
        <Loading what="jobs" />
      ) : jobs.data.jobs.length === 0 ? (
        <p className="muted">No jobs {cursor ? 'older than these' : 'match'}.</p>
      ) : (
        <JobTable endpointId={id} jobs={jobs.data.jobs} />
      )}
      <p className="muted">
        Inputs and outputs are kept as long as /status keeps the result; the jobs stay listed without them
        after.
      </p>
      <div className="row">
        {cursors.length > 0 && (
          <Button className="secondary small" onPress={() => setCursors([])}>
            Newest jobs
          </Button>
        )}
        {jobs.data?.next && (
          <Button className="secondary small" onPress={() => setCursors([...cursors, jobs.data.next!])}>
            Older jobs
          </Button>
        )}
      </div>
    </Section>
  );
}

function JobTable({ endpointId, jobs }: { endpointId: string; jobs: JobSummaryView[] }) {
  return (
    <table aria-label="Job history">
      <thead>
        <tr>
          <th scope="col">Job</th>
          <th scope="col">Status</th>
          <th scope="col">Created</th>
          <th scope="col">Delay</th>
          <th scope="col">Execution</th>
          <th scope="col">Worker</th>
          <th scope="col">Input</th>
          <th scope="col">Output or error</th>
        </tr>
      </thead>
      <tbody>
        {jobs.map((j) => (
          <tr key={j.id}>
            <td>
              <a href={`#/endpoints/${endpointId}/jobs/${j.id}`}>
                <code>{j.id.slice(0, 13)}…</code>
              </a>
            </td>
            <td>
              <StatusBadge status={j.status} />
              {j.retries > 0 && ` retried ${j.retries}×`}
            </td>
            <td>{when(j.createdAt)}</td>
            <td>{duration(j.delayTime)}</td>
            <td>{duration(j.executionTime)}</td>
            <td>{j.workerId ? <code>{j.workerId.slice(0, 8)}…</code> : '—'}</td>
            <td>
              <Preview value={j.input} size={j.inputBytes} />
            </td>
            <td>
              {j.error || j.errorBytes !== null ? (
                <Preview value={j.error} size={j.errorBytes} />
              ) : (
                <Preview value={j.output} size={j.outputBytes} />
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
