import { useEffect, useState, type FormEvent } from 'react';
import { Button } from 'react-aria-components';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { JobAccepted, JobView, StreamChunk, StreamRead } from '@app/contracts';
import { api } from '../../api';
import { ErrorBox, Section, StatusBadge, WaitReasonLine, useAction, useSession } from '../../ui';
import { TextInput } from '../../controls';

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);

interface SubmittedJob {
  id: string;
  input: string;
}

/** The jobs this tab submitted, per endpoint (the API lists no jobs: each is read by its id). */
const submitted = new Map<string, SubmittedJob[]>();
export function RunJob({ id }: { id: string }) {
  const { canWrite } = useSession();
  const [input, setInput] = useState('{"prompt": "hello"}');
  const [jobs, setJobs] = useState<SubmittedJob[]>(() => submitted.get(id) ?? []);
  const [parseError, setParseError] = useState<string | null>(null);
  const run = useAction(async (body: unknown) => api<JobAccepted>(`/v2/${id}/run`, { method: 'POST', body }));
  useEffect(() => {
    submitted.set(id, jobs);
  }, [id, jobs]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(input);
      setParseError(null);
    } catch (e) {
      setParseError(`input is not JSON: ${(e as Error).message}`);
      return;
    }
    run.mutate(
      { input: parsed },
      { onSuccess: (job) => setJobs((list) => [{ id: job.id, input }, ...list]) },
    );
  };
  return (
    <Section title="Test job">
      {canWrite && (
        <form onSubmit={submit}>
          <TextInput label="Input (JSON)" multiline rows={3} value={input} onChange={setInput} />
          {parseError && (
            <div role="alert" className="error">
              {parseError}
            </div>
          )}
          <ErrorBox error={run.error} />
          <Button type="submit" isDisabled={run.isPending}>
            {run.isPending ? 'Submitting…' : 'Run job'}
          </Button>
        </form>
      )}
      {jobs.length > 0 && (
        <table aria-label="Jobs">
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Status</th>
              <th scope="col">Output</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((job) => (
              <JobRow key={job.id} endpointId={id} jobId={job.id} />
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

function JobRow({ endpointId, jobId }: { endpointId: string; jobId: string }) {
  const status = useQuery({
    queryKey: ['job', endpointId, jobId],
    queryFn: () => api<JobView>(`/v2/${endpointId}/status/${jobId}`),
    refetchInterval: (query) => (query.state.data && TERMINAL.has(query.state.data.status) ? false : 1000),
  });
  const client = useQueryClient();
  const streamKey = ['job', endpointId, jobId, 'stream'];
  // GET /stream answers only the chunks it has not answered before: each read is appended to those kept in the
  // cache (so every chunk is shown once, in order, even after the page was left and opened again).
  const stream = useQuery({
    queryKey: streamKey,
    queryFn: async () => {
      const read = await api<StreamRead>(`/v2/${endpointId}/stream/${jobId}`);
      return [...(client.getQueryData<StreamChunk[]>(streamKey) ?? []), ...read.stream];
    },
    enabled: status.data?.status === 'IN_PROGRESS',
    refetchInterval: 1000,
    staleTime: Infinity,
    gcTime: Infinity,
  });
  const s = status.data;
  const output = s?.output !== undefined ? JSON.stringify(s.output) : s?.error;
  const chunks = stream.data?.length ? stream.data.map((c) => JSON.stringify(c.output)).join(' ') : null;
  return (
    <tr>
      <td>
        <code>{jobId}</code>
      </td>
      <td>
        {s ? <StatusBadge status={s.status} /> : '…'}
        <WaitReasonLine reason={s?.reason} />
      </td>
      <td>
        <ErrorBox error={status.error} />
        {output ? (
          <code className="output">{output}</code>
        ) : chunks ? (
          <code className="output">{chunks}</code>
        ) : (
          '—'
        )}
        {s?.executionTime !== undefined && <span className="muted"> ({s.executionTime} ms)</span>}
      </td>
    </tr>
  );
}
