import { useQuery } from '@tanstack/react-query';
import type { JobDetail } from '@app/contracts';
import { api } from '../../../api';
import { ErrorBox, Loading, Section, StatusBadge, when } from '../../../ui';
import { bytes, duration } from './jobs-section';

const ENDED = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);

/** A payload as JSON text, or why it is not shown. */
function Payload({ label, value, size }: { label: string; value: unknown; size: number | null }) {
  return (
    <Section title={label}>
      {value !== undefined ? (
        <code className="output">{typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</code>
      ) : (
        <p className="muted">
          {size === null ? 'None.' : `${bytes(size)}: no longer kept (the result expired).`}
        </p>
      )}
    </Section>
  );
}

/**
 * One job (GET /v2/serverless/{id}/jobs/{jobId}): its input, output or error, timings by phase, its attempts, the
 * worker linked to its pod, and what the worker printed around it. Refreshed every 2 s until it ends.
 */
export function JobDetailPage({ endpointId, jobId }: { endpointId: string; jobId: string }) {
  const job = useQuery({
    queryKey: ['endpoint', endpointId, 'job', jobId],
    queryFn: () => api<JobDetail>(`/v2/serverless/${endpointId}/jobs/${jobId}`),
    refetchInterval: (query) => (query.state.data && ENDED.has(query.state.data.status) ? false : 2000),
  });
  const back = (
    <p>
      <a href={`#/endpoints/${endpointId}`}>← The endpoint</a>
    </p>
  );
  if (job.error) {
    return (
      <>
        {back}
        <ErrorBox error={job.error} />
      </>
    );
  }
  if (!job.data) return <Loading what="the job" />;
  const j = job.data;
  return (
    <>
      {back}
      <Section title={`Job ${j.id}`}>
        <dl className="facts">
          <dt>Status</dt>
          <dd>
            <StatusBadge status={j.status} />
            {j.retries > 0 && ` (retried ${j.retries}×)`}
          </dd>
          <dt>Created</dt>
          <dd>{when(j.createdAt)}</dd>
          <dt>Started</dt>
          <dd>{when(j.startedAt)}</dd>
          <dt>Ended</dt>
          <dd>{when(j.completedAt)}</dd>
          <dt>Queued</dt>
          <dd>{duration(j.phases.queued)}</dd>
          <dt>Running</dt>
          <dd>{duration(j.phases.running)}</dd>
          <dt>Total</dt>
          <dd>{duration(j.phases.total)}</dd>
          <dt>Worker</dt>
          <dd>{j.workerId ? <a href={`#/pods/${j.workerId}`}>{j.workerId}</a> : 'none yet'}</dd>
          <dt>Result kept until</dt>
          <dd>{when(j.resultExpiresAt)}</dd>
        </dl>
      </Section>
      <Payload label="Input" value={j.input} size={j.inputBytes} />
      {j.errorBytes !== null ? (
        <Payload label="Error" value={j.error} size={j.errorBytes} />
      ) : (
        <Payload label="Output" value={j.output} size={j.outputBytes} />
      )}
      <Section title="Attempts">
        {j.leases.length === 0 ? (
          <p className="muted">Not run yet.</p>
        ) : (
          <table aria-label="Attempts">
            <thead>
              <tr>
                <th scope="col">Attempt</th>
                <th scope="col">Worker</th>
                <th scope="col">Started</th>
                <th scope="col">Ended</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {j.leases.map((l) => (
                <tr key={`${l.attempt}-${l.startedAt}`}>
                  <td>{l.attempt}</td>
                  <td>
                    <a href={`#/pods/${l.workerId}`}>
                      <code>{l.workerId}</code>
                    </a>
                  </td>
                  <td>{when(l.startedAt)}</td>
                  <td>{when(l.endedAt)}</td>
                  <td>{l.outcome ? <StatusBadge status={l.outcome} /> : 'running'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
      <Section title="Worker logs around the job">
        {!j.logs ? (
          <p className="muted">The job has not run: no worker printed anything for it.</p>
        ) : (
          <>
            <p className="muted">
              {when(j.logs.from)} to {when(j.logs.to)}
              {j.logs.truncated && ' (the first 500 lines)'}
            </p>
            <div className="logs" tabIndex={0} aria-label="Log lines" role="log">
              {j.logs.lines.length === 0 && <span className="muted">No lines in this window.</span>}
              {j.logs.lines.map((l, i) => (
                <div key={i} className={`log-${l.stream}`}>
                  <span className="muted">{new Date(l.time).toLocaleTimeString()}</span> {l.line}
                </div>
              ))}
            </div>
          </>
        )}
      </Section>
    </>
  );
}
