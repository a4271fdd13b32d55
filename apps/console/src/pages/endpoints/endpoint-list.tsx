import { useQuery } from '@tanstack/react-query';
import type { EndpointV2List } from '@app/contracts';
import { api } from '../../api';
import { ErrorBox, Loading, Section, WriteOnly, when } from '../../ui';
import { CreateEndpoint } from './create-endpoint';

export function EndpointList() {
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
