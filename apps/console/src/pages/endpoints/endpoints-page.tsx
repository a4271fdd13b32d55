import { useQuery } from '@tanstack/react-query';
import type { EndpointHealth, EndpointV2View } from '@app/contracts';
import { api } from '../../api';
import { ErrorBox, Loading, Section, WaitReasonLine, WriteOnly } from '../../ui';
import { EndpointList } from './endpoint-list';
import { EditEndpoint } from './edit-endpoint';
import { Workers } from './workers';
import { RunJob } from './test-job';
import { Metrics } from './metrics';
import { Jobs } from './jobs/jobs-section';
import { JobDetailPage } from './jobs/job-detail-page';
import { EndpointSnippets } from './endpoint-snippets';
import { LbRequestTester } from './lb-request-tester';

export function EndpointsPage({ route }: { route: string[] }) {
  if (route[0] && route[1] === 'jobs' && route[2]) {
    return <JobDetailPage endpointId={route[0]} jobId={route[2]} />;
  }
  return route[0] ? <EndpointDetail id={route[0]} /> : <EndpointList />;
}

function EndpointDetail({ id }: { id: string }) {
  const endpoint = useQuery({
    queryKey: ['endpoint', id],
    queryFn: () => api<EndpointV2View>(`/v2/serverless/${id}`),
  });
  // A load-balancing endpoint has no queue: /health refuses it (400), so it is asked only of a queue endpoint.
  const queue = endpoint.data?.type === 'QUEUE';
  const health = useQuery({
    queryKey: ['endpoint', id, 'health'],
    queryFn: () => api<EndpointHealth>(`/v2/${id}/health`),
    refetchInterval: 3000,
    enabled: queue,
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
          <dd>
            {e.gpu.pools.join(', ')} ({e.gpu.count} GPU{e.gpu.count === 1 ? '' : 's'} per worker)
          </dd>
          <dt>Workers</dt>
          <dd>
            {e.workers.min}–{e.workers.max}, idle timeout {e.workers.idleTimeout} s
          </dd>
          <dt>Scaler</dt>
          <dd>
            {e.scaling.type === 'QUEUE_DELAY'
              ? `queue delay ${e.scaling.queueDelay} s`
              : `${e.scaling.requestCount} requests per worker`}
            , FlashBoot {e.flashboot === 'FLASHBOOT' ? 'on' : 'off'}
          </dd>
          {queue && (
            <>
              <dt>Queue</dt>
              <dd>
                {health.data
                  ? `${health.data.jobs.inQueue} in queue, ${health.data.jobs.inProgress} in progress, ` +
                    `${health.data.jobs.completed} completed, ${health.data.jobs.failed} failed`
                  : '…'}
              </dd>
              <dt>Waiting</dt>
              <dd>
                {health.data?.waitReason ? (
                  <WaitReasonLine reason={health.data.waitReason} />
                ) : (
                  'nothing holds its jobs'
                )}
              </dd>
            </>
          )}
        </dl>
      </Section>
      <EndpointSnippets endpoint={e} />
      <Workers id={id} />
      <WriteOnly>{queue ? <RunJob id={id} /> : <LbRequestTester id={id} />}</WriteOnly>
      {queue && <Jobs id={id} />}
      <Metrics id={id} type={e.type} />
      <WriteOnly>
        <EditEndpoint endpoint={e} />
      </WriteOnly>
    </>
  );
}
