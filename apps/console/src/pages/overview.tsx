import { useQueries, useQuery } from '@tanstack/react-query';
import type { ClusterList, EndpointHealth, EndpointV2List, PodV2List, SpendStatus } from '@app/contracts';
import { api } from '../api';
import { ErrorBox, Loading, Section, money } from '../ui';

export function OverviewPage() {
  const pods = useQuery({
    queryKey: ['pods'],
    queryFn: () => api<PodV2List>('/v2/pods?includeClusterPods=true'),
    refetchInterval: 5000,
  });
  const clusters = useQuery({
    queryKey: ['clusters'],
    queryFn: async () => (await api<ClusterList>('/v2/clusters')).clusters,
  });
  const endpoints = useQuery({
    queryKey: ['endpoints'],
    queryFn: () => api<EndpointV2List>('/v2/serverless'),
    refetchInterval: 10_000,
  });
  const health = useQueries({
    queries: (endpoints.data?.endpoints ?? []).map((e) => ({
      queryKey: ['endpoint', e.id, 'health'],
      queryFn: () => api<EndpointHealth>(`/v2/${e.id}/health`),
      refetchInterval: 5000,
      // A load-balancing endpoint has no queue (/health refuses it): its row says so instead.
      enabled: e.type === 'QUEUE',
    })),
  });
  const spend = useQuery({
    queryKey: ['spend'],
    queryFn: () => api<SpendStatus>('/v2/account/spend-limit'),
    refetchInterval: 60_000,
  });
  const running = pods.data?.pods.filter((p) => p.status === 'RUNNING') ?? [];
  const gpus = running.reduce((sum, p) => sum + (p.gpu?.count ?? 0), 0);
  const limit = spend.data?.monthlyLimit;
  return (
    <>
      <div className="tiles">
        <Section title="Running pods">
          <ErrorBox error={pods.error} />
          <p className="big">{pods.data ? running.length : '…'}</p>
          <p className="muted">
            {gpus} GPU{gpus === 1 ? '' : 's'} in use, {pods.data?.pods.length ?? '…'} pods in all
          </p>
        </Section>
        <Section title="Clusters">
          <ErrorBox error={clusters.error} />
          <p className="big">{clusters.data?.length ?? '…'}</p>
        </Section>
        <Section title="Spend this month">
          <ErrorBox error={spend.error} />
          <p className="big">{spend.data ? money(spend.data.spend) : '…'}</p>
          <p className="muted">
            {limit === null || limit === undefined
              ? 'no monthly limit'
              : `of a ${money(limit)} monthly limit${spend.data?.reached ? ' (reached)' : ''}`}
          </p>
        </Section>
      </div>
      <Section title="Serverless endpoints">
        <ErrorBox error={endpoints.error} />
        {!endpoints.data ? (
          <Loading what="endpoints" />
        ) : endpoints.data.endpoints.length === 0 ? (
          <p className="muted">No endpoints.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">In queue</th>
                <th scope="col">In progress</th>
                <th scope="col">Failed (recent)</th>
                <th scope="col">Workers ready</th>
              </tr>
            </thead>
            <tbody>
              {endpoints.data.endpoints.map((e, i) => {
                const h = health[i]?.data;
                return (
                  <tr key={e.id}>
                    <td>
                      <a href={`#/endpoints/${e.id}`}>{e.name}</a>
                    </td>
                    {e.type === 'LOAD_BALANCER' ? (
                      <td colSpan={4} className="muted">
                        load balancing: no queue (its page shows its workers)
                      </td>
                    ) : (
                      <>
                        <td>{h?.jobs.inQueue ?? '…'}</td>
                        <td>{h?.jobs.inProgress ?? '…'}</td>
                        <td>{h?.jobs.failed ?? '…'}</td>
                        <td>{h ? h.workers.idle + h.workers.running : '…'}</td>
                      </>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </Section>
    </>
  );
}
