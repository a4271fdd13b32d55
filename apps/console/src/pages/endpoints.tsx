import { useEffect, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import type {
  EndpointHealth,
  EndpointMetrics,
  EndpointV2List,
  EndpointV2View,
  GpuTier,
  JobAccepted,
  JobView,
  MetricsWindow,
  StreamRead,
  TemplateList,
  WorkerList,
} from '@app/contracts';
import { api } from '../api';
import { PodLogs } from './pods';
import {
  BarChart,
  ErrorBox,
  Field,
  Loading,
  Section,
  StatusBadge,
  WriteOnly,
  useAction,
  useSession,
  when,
} from '../ui';

const POOLS: GpuTier[] = [
  'AMPERE_16',
  'AMPERE_24',
  'ADA_24',
  'AMPERE_48',
  'ADA_48_PRO',
  'AMPERE_80',
  'ADA_80_PRO',
];
const WINDOWS: MetricsWindow[] = ['5m', '1h', '24h', '7d'];
const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);

export function EndpointsPage({ route }: { route: string[] }) {
  return route[0] ? <EndpointDetail id={route[0]} /> : <EndpointList />;
}

function EndpointList() {
  const endpoints = useQuery({
    queryKey: ['endpoints'],
    queryFn: () => api<EndpointV2List>('/v2/serverless'),
    refetchInterval: 10_000,
  });
  return (
    <>
      <WriteOnly>
        <CreateEndpoint />
      </WriteOnly>
      <Section title="Endpoints">
        <ErrorBox error={endpoints.error} />
        {!endpoints.data ? (
          <Loading what="endpoints" />
        ) : endpoints.data.endpoints.length === 0 ? (
          <p className="muted">No serverless endpoints yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Workers (min–max)</th>
                <th scope="col">GPU pools</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {endpoints.data.endpoints.map((e) => (
                <tr key={e.id}>
                  <td>
                    <a href={`#/endpoints/${e.id}`}>{e.name}</a>
                  </td>
                  <td>{e.type}</td>
                  <td>
                    {e.workers.min}–{e.workers.max}
                  </td>
                  <td>{e.gpu.pools.join(', ')}</td>
                  <td>{when(e.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </>
  );
}

function CreateEndpoint() {
  const templates = useQuery({ queryKey: ['templates'], queryFn: () => api<TemplateList>('/v2/templates') });
  const [name, setName] = useState('');
  const [templateId, setTemplateId] = useState('');
  const [pool, setPool] = useState<GpuTier>('AMPERE_16');
  const [min, setMin] = useState(0);
  const [max, setMax] = useState(1);
  const [idle, setIdle] = useState(5);
  const create = useAction(
    () =>
      api<EndpointV2View>('/v2/serverless', {
        method: 'POST',
        body: {
          name,
          type: 'QUEUE',
          templateId,
          gpu: { pools: [pool], count: 1 },
          workers: { min, max, idleTimeout: idle },
          scaling: { type: 'QUEUE_DELAY', queueDelay: 1 },
        },
      }),
    [['endpoints']],
  );
  const serverless = templates.data?.templates.filter((t) => t.serverless) ?? [];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(undefined, { onSuccess: (e) => (window.location.hash = `#/endpoints/${e.id}`) });
  };
  return (
    <Section title="New endpoint">
      <form onSubmit={submit} className="grid-form">
        <Field label="Name">
          {(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Template" hint="A serverless template (Templates page)">
          {(id, hint) => (
            <select
              id={id}
              aria-describedby={hint}
              value={templateId}
              onChange={(e) => setTemplateId(e.target.value)}
            >
              <option value="">Choose…</option>
              {serverless.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name} ({t.image})
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="GPU pool">
          {(id) => (
            <select id={id} value={pool} onChange={(e) => setPool(e.target.value as GpuTier)}>
              {POOLS.map((p) => (
                <option key={p}>{p}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Workers min">
          {(id) => (
            <input
              id={id}
              type="number"
              min={0}
              value={min}
              onChange={(e) => setMin(Number(e.target.value))}
            />
          )}
        </Field>
        <Field label="Workers max">
          {(id) => (
            <input
              id={id}
              type="number"
              min={0}
              value={max}
              onChange={(e) => setMax(Number(e.target.value))}
            />
          )}
        </Field>
        <Field label="Idle timeout (s)">
          {(id) => (
            <input
              id={id}
              type="number"
              min={1}
              value={idle}
              onChange={(e) => setIdle(Number(e.target.value))}
            />
          )}
        </Field>
        <ErrorBox error={create.error} />
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create endpoint'}
        </button>
      </form>
    </Section>
  );
}

function EndpointDetail({ id }: { id: string }) {
  const endpoint = useQuery({
    queryKey: ['endpoint', id],
    queryFn: () => api<EndpointV2View>(`/v2/serverless/${id}`),
  });
  const health = useQuery({
    queryKey: ['endpoint', id, 'health'],
    queryFn: () => api<EndpointHealth>(`/v2/${id}/health`),
    refetchInterval: 3000,
  });
  if (endpoint.error) return <ErrorBox error={endpoint.error} />;
  if (!endpoint.data) return <Loading what="the endpoint" />;
  const e = endpoint.data;
  return (
    <>
      <p>
        <a href="#/endpoints">← All endpoints</a>
      </p>
      <Section title={e.name}>
        <dl className="facts">
          <dt>Id</dt>
          <dd>
            <code>{e.id}</code>
          </dd>
          <dt>Type</dt>
          <dd>{e.type}</dd>
          <dt>GPU pools</dt>
          <dd>{e.gpu.pools.join(', ')}</dd>
          <dt>Queue</dt>
          <dd>
            {health.data
              ? `${health.data.jobs.inQueue} in queue, ${health.data.jobs.inProgress} in progress, ` +
                `${health.data.jobs.completed} completed, ${health.data.jobs.failed} failed`
              : '…'}
          </dd>
        </dl>
        <WriteOnly>
          <EditEndpoint endpoint={e} />
        </WriteOnly>
      </Section>
      <Workers id={id} />
      <WriteOnly>
        <RunJob id={id} />
      </WriteOnly>
      <Metrics id={id} />
    </>
  );
}

function EditEndpoint({ endpoint }: { endpoint: EndpointV2View }) {
  const [min, setMin] = useState(endpoint.workers.min);
  const [max, setMax] = useState(endpoint.workers.max);
  const [idle, setIdle] = useState(endpoint.workers.idleTimeout);
  const save = useAction(
    () =>
      api<EndpointV2View>(`/v2/serverless/${endpoint.id}`, {
        method: 'PATCH',
        body: { workers: { min, max, idleTimeout: idle } },
      }),
    [['endpoint', endpoint.id], ['endpoints']],
  );
  const remove = useAction(
    () => api<void>(`/v2/serverless/${endpoint.id}`, { method: 'DELETE' }),
    [['endpoints']],
  );
  return (
    <form
      className="grid-form"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(undefined);
      }}
    >
      <Field label="Workers min">
        {(id) => (
          <input id={id} type="number" min={0} value={min} onChange={(e) => setMin(Number(e.target.value))} />
        )}
      </Field>
      <Field label="Workers max">
        {(id) => (
          <input id={id} type="number" min={0} value={max} onChange={(e) => setMax(Number(e.target.value))} />
        )}
      </Field>
      <Field label="Idle timeout (s)">
        {(id) => (
          <input
            id={id}
            type="number"
            min={1}
            value={idle}
            onChange={(e) => setIdle(Number(e.target.value))}
          />
        )}
      </Field>
      <ErrorBox error={save.error ?? remove.error} />
      <div className="row">
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save workers'}
        </button>
        <button
          type="button"
          className="danger"
          disabled={remove.isPending}
          onClick={() => {
            if (window.confirm(`Delete endpoint ${endpoint.name}?`))
              remove.mutate(undefined, { onSuccess: () => (window.location.hash = '#/endpoints') });
          }}
        >
          Delete endpoint
        </button>
      </div>
      {save.isSuccess && <p role="status">Saved.</p>}
    </form>
  );
}

function Workers({ id }: { id: string }) {
  const [logsOf, setLogsOf] = useState<string | null>(null);
  const workers = useQuery({
    queryKey: ['endpoint', id, 'workers'],
    queryFn: () => api<WorkerList>(`/v2/serverless/${id}/workers`),
    refetchInterval: 2000,
  });
  return (
    <Section title="Workers">
      <ErrorBox error={workers.error} />
      {!workers.data ? (
        <Loading what="workers" />
      ) : workers.data.workers.length === 0 ? (
        <p className="muted">No workers: one starts when a job waits (or workers min is above 0).</p>
      ) : (
        <table aria-label="Workers">
          <thead>
            <tr>
              <th scope="col">Worker</th>
              <th scope="col">Status</th>
              <th scope="col">Pod</th>
              <th scope="col">Jobs</th>
              <th scope="col">Last seen</th>
              <th scope="col">
                <span className="sr-only">Logs</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {workers.data.workers.map((w) => (
              <tr key={w.id}>
                <td>
                  <code>{w.id}</code>
                </td>
                <td>
                  <StatusBadge status={w.status} />
                  {w.isStale && ' (stale)'}
                </td>
                <td>{w.podStatus ?? '—'}</td>
                <td>{w.currentJobCount}</td>
                <td>{when(w.lastSeenAt)}</td>
                <td>
                  {w.podId && (
                    <button
                      type="button"
                      className="secondary small"
                      aria-pressed={logsOf === w.id}
                      onClick={() => setLogsOf(logsOf === w.id ? null : w.id)}
                    >
                      Logs of {w.id.slice(0, 6)}…
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {logsOf && <PodLogs path={`/v2/serverless/${id}/workers/${logsOf}/logs`} />}
    </Section>
  );
}

interface SubmittedJob {
  id: string;
  input: string;
}

/** The jobs this tab submitted, per endpoint (the API lists no jobs: each is read by its id). */
const submitted = new Map<string, SubmittedJob[]>();

function RunJob({ id }: { id: string }) {
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
          <Field label="Input (JSON)">
            {(fid) => <textarea id={fid} rows={3} value={input} onChange={(e) => setInput(e.target.value)} />}
          </Field>
          {parseError && (
            <div role="alert" className="error">
              {parseError}
            </div>
          )}
          <ErrorBox error={run.error} />
          <button type="submit" disabled={run.isPending}>
            {run.isPending ? 'Submitting…' : 'Run job'}
          </button>
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
  const stream = useQuery({
    queryKey: ['job', endpointId, jobId, 'stream'],
    queryFn: () => api<StreamRead>(`/v2/${endpointId}/stream/${jobId}`),
    enabled: status.data?.status === 'IN_PROGRESS',
    refetchInterval: 1000,
  });
  const s = status.data;
  const output = s?.output !== undefined ? JSON.stringify(s.output) : s?.error;
  const chunks = stream.data?.stream.map((c) => JSON.stringify(c.output)).join(' ');
  return (
    <tr>
      <td>
        <code>{jobId}</code>
      </td>
      <td>{s ? <StatusBadge status={s.status} /> : '…'}</td>
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

function Metrics({ id }: { id: string }) {
  const [window, setWindow] = useState<MetricsWindow>('1h');
  const metrics = useQuery({
    queryKey: ['endpoint', id, 'metrics', window],
    queryFn: () => api<EndpointMetrics>(`/v2/serverless/${id}/metrics?window=${window}`),
    refetchInterval: 15_000,
  });
  const m = metrics.data;
  const labels = m?.series.t.map((t) => new Date(t).toLocaleTimeString()) ?? [];
  return (
    <Section
      title="Metrics"
      actions={
        <Field label="Window">
          {(fid) => (
            <select id={fid} value={window} onChange={(e) => setWindow(e.target.value as MetricsWindow)}>
              {WINDOWS.map((w) => (
                <option key={w}>{w}</option>
              ))}
            </select>
          )}
        </Field>
      }
    >
      <ErrorBox error={metrics.error} />
      {!m ? (
        <Loading what="metrics" />
      ) : (
        <div className="charts">
          <BarChart title="Jobs completed" labels={labels} values={m.series.jobs.completed} />
          <BarChart title="Jobs failed" labels={labels} values={m.series.jobs.failed} />
          <BarChart title="Queue depth" labels={labels} values={m.series.queue.depth} />
          <BarChart
            title="Workers running"
            labels={labels}
            values={m.series.workers.running.map((v, i) => v + (m.series.workers.idle[i] ?? 0))}
          />
        </div>
      )}
    </Section>
  );
}
