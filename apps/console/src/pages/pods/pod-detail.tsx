import { useQuery } from '@tanstack/react-query';
import type { PodV2View } from '@app/contracts';
import { api } from '../../api';
import { ErrorBox, Loading, Section, StatusBadge, WaitReasonLine, WriteOnly, money, when } from '../../ui';
import { Age } from './age';
import { PodActions } from './pod-actions';
import { PartOf } from './pod-list';
import { PodLogs } from './pod-logs';

export function PodDetail({ id }: { id: string }) {
  const pod = useQuery({
    queryKey: ['pod', id],
    queryFn: () => api<PodV2View>(`/v2/pods/${id}`),
    refetchInterval: (q) =>
      q.state.data && q.state.data.status !== q.state.data.desiredStatus ? 1000 : 4000,
  });
  if (pod.error) return <ErrorBox error={pod.error} />;
  if (!pod.data) return <Loading what="the pod" />;
  const p = pod.data;
  const moving = p.status !== p.desiredStatus;
  return (
    <>
      <p>
        <a href="#/pods">← All pods</a>
      </p>
      <Section title={p.name}>
        <p>
          <StatusBadge status={p.status} />{' '}
          {moving && (
            <span role="status" className="muted">
              going to {p.desiredStatus}…
            </span>
          )}
          {p.reason ? (
            <WaitReasonLine reason={p.reason} />
          ) : (
            p.statusReason && <span className="muted"> {p.statusReason}</span>
          )}
        </p>
        <WriteOnly>
          <PodActions pod={p} />
        </WriteOnly>
        <dl className="facts">
          <dt>Id</dt>
          <dd>
            <code>{p.id}</code>
          </dd>
          <dt>Image</dt>
          <dd>
            <code>{p.image}</code>
          </dd>
          <dt>GPU</dt>
          <dd>{p.gpu ? `${p.gpu.count} × ${p.gpu.id ?? '?'}` : 'CPU'}</dd>
          <dt>Data center</dt>
          <dd>{p.dataCenterId ?? '—'}</dd>
          <dt>Part of</dt>
          <dd>
            <PartOf pod={p} />
          </dd>
          <dt>Cost</dt>
          <dd>{money(p.costPerHr)}/hr</dd>
          <dt>SSH</dt>
          <dd>{p.ssh.direct ? <code>{p.ssh.direct.command}</code> : '—'}</dd>
          <dt>HTTP</dt>
          <dd>
            {p.runtime?.ports.filter((port) => port.type === 'http').length ? (
              <ul className="plain">
                {p.runtime.ports
                  .filter((port) => port.type === 'http')
                  .map((port) => (
                    <li key={port.private}>
                      <code>
                        http://{port.ip}:{port.public}
                      </code>{' '}
                      (container port {port.private})
                    </li>
                  ))}
              </ul>
            ) : (
              '—'
            )}
          </dd>
          <dt>Created</dt>
          <dd>
            <Age iso={p.createdAt} />
          </dd>
          <dt>Last status change</dt>
          <dd>{when(p.lastStatusChange)}</dd>
        </dl>
      </Section>
      {p.status !== 'TERMINATED' && <PodLogs path={`/v2/pods/${id}/logs`} />}
    </>
  );
}
