import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import type {
  GpuTypeView,
  PodLogLine,
  PodStatus,
  PodV2List,
  PodV2View,
  PublishedPodAction,
  TemplateList,
} from '@app/contracts';
import { api, readEvents } from '../api';
import { ErrorBox, Field, Loading, Section, StatusBadge, WriteOnly, money, useAction, when } from '../ui';
import { parseEnv, parseList } from './templates';

const STATUSES: PodStatus[] = ['PROVISIONING', 'STARTING', 'RUNNING', 'EXITED', 'ERROR', 'TERMINATED'];
const ACTION_LABELS: Record<PublishedPodAction, string> = {
  start: 'Start',
  stop: 'Stop',
  // The platform's restart recreates the container on a wiped container disk: RunPod's "reset".
  restart: 'Restart (reset)',
  terminate: 'Terminate',
};
/** While a pod moves, its page polls fast; a settled pod slowly. */
const MOVING = new Set<PodStatus>(['PROVISIONING', 'STARTING']);

export function PodsPage({ route }: { route: string[] }) {
  return route[0] ? <PodDetail id={route[0]} /> : <PodList />;
}

function PodList() {
  const [status, setStatus] = useState<'' | PodStatus>('');
  const [search, setSearch] = useState('');
  const pods = useQuery({
    queryKey: ['pods'],
    queryFn: () => api<PodV2List>('/v2/pods?includeClusterPods=true'),
    refetchInterval: (q) => (q.state.data?.pods.some((p) => MOVING.has(p.status)) ? 2000 : 5000),
  });
  const shown =
    pods.data?.pods.filter(
      (p) =>
        (!status || p.status === status) && (!search || p.name.toLowerCase().includes(search.toLowerCase())),
    ) ?? [];
  return (
    <>
      <WriteOnly>
        <CreatePod />
      </WriteOnly>
      <Section title="Pods">
        <div className="row filters">
          <Field label="Status">
            {(id) => (
              <select id={id} value={status} onChange={(e) => setStatus(e.target.value as PodStatus | '')}>
                <option value="">Any</option>
                {STATUSES.map((s) => (
                  <option key={s}>{s}</option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Name contains">
            {(id) => (
              <input id={id} type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
            )}
          </Field>
        </div>
        <ErrorBox error={pods.error} />
        {!pods.data ? (
          <Loading what="pods" />
        ) : shown.length === 0 ? (
          <p className="muted">No pods{status || search ? ' match' : ' yet'}.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">GPU</th>
                <th scope="col">Image</th>
                <th scope="col">Cost/hr</th>
                <th scope="col">Cluster</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((p) => (
                <tr key={p.id}>
                  <td>
                    <a href={`#/pods/${p.id}`}>{p.name}</a>
                  </td>
                  <td>
                    <StatusBadge status={p.status} />
                  </td>
                  <td>{p.gpu ? `${p.gpu.count} × ${p.gpu.id ?? '?'}` : 'CPU'}</td>
                  <td>
                    <code>{p.image}</code>
                  </td>
                  <td>{money(p.costPerHr)}</td>
                  <td>
                    {p.cluster ? <a href={`#/clusters/${p.cluster.id}`}>rank {p.cluster.rank}</a> : '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </>
  );
}

export function useGpuTypes() {
  return useQuery({ queryKey: ['catalog', 'gpus'], queryFn: () => api<GpuTypeView[]>('/v2/catalog/gpus') });
}

function CreatePod() {
  const templates = useQuery({ queryKey: ['templates'], queryFn: () => api<TemplateList>('/v2/templates') });
  const gpus = useGpuTypes();
  const [name, setName] = useState('');
  const [source, setSource] = useState<'image' | 'template'>('image');
  const [image, setImage] = useState('');
  const [templateId, setTemplateId] = useState('');
  const [gpu, setGpu] = useState('');
  const [count, setCount] = useState(1);
  const [ports, setPorts] = useState('8888/http, 22/tcp');
  const [env, setEnv] = useState('');
  const create = useAction(
    () =>
      api<PodV2View>('/v2/pods', {
        method: 'POST',
        body: {
          name,
          ...(source === 'image' ? { image } : { templateId }),
          gpu: { id: gpu, count },
          ...(source === 'image' ? { ports: parseList(ports), env: parseEnv(env) } : {}),
        },
      }),
    [['pods']],
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(undefined, { onSuccess: (pod) => (window.location.hash = `#/pods/${pod.id}`) });
  };
  return (
    <Section title="New pod">
      <form onSubmit={submit} className="grid-form">
        <Field label="Name">
          {(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <fieldset>
          <legend>Start from</legend>
          <label>
            <input
              type="radio"
              name="pod-source"
              checked={source === 'image'}
              onChange={() => setSource('image')}
            />{' '}
            an image
          </label>
          <label>
            <input
              type="radio"
              name="pod-source"
              checked={source === 'template'}
              onChange={() => setSource('template')}
            />{' '}
            a template
          </label>
        </fieldset>
        {source === 'image' ? (
          <>
            <Field label="Image">
              {(id) => (
                <input
                  id={id}
                  value={image}
                  placeholder="repo/image:tag"
                  onChange={(e) => setImage(e.target.value)}
                />
              )}
            </Field>
            <Field label="Ports" hint="Comma-separated, e.g. 8888/http, 22/tcp">
              {(id, hint) => (
                <input
                  id={id}
                  aria-describedby={hint}
                  value={ports}
                  onChange={(e) => setPorts(e.target.value)}
                />
              )}
            </Field>
            <Field label="Environment" hint="One KEY=value per line">
              {(id, hint) => (
                <textarea
                  id={id}
                  aria-describedby={hint}
                  rows={2}
                  value={env}
                  onChange={(e) => setEnv(e.target.value)}
                />
              )}
            </Field>
          </>
        ) : (
          <Field label="Template">
            {(id) => (
              <select id={id} value={templateId} onChange={(e) => setTemplateId(e.target.value)}>
                <option value="">Choose…</option>
                {templates.data?.templates
                  .filter((t) => !t.serverless)
                  .map((t) => (
                    <option key={t.id} value={t.id}>
                      {t.name} ({t.image})
                    </option>
                  ))}
              </select>
            )}
          </Field>
        )}
        <Field label="GPU type">
          {(id) => (
            <select id={id} value={gpu} onChange={(e) => setGpu(e.target.value)}>
              <option value="">Choose…</option>
              {gpus.data?.map((g) => (
                <option key={g.id} value={g.id} disabled={g.availability.freeGpus === 0}>
                  {g.displayName} — {g.availability.freeGpus} free, {money(g.pricePerHr)}/hr
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="GPU count">
          {(id) => (
            <input
              id={id}
              type="number"
              min={1}
              max={8}
              value={count}
              onChange={(e) => setCount(Number(e.target.value))}
            />
          )}
        </Field>
        <ErrorBox error={create.error} />
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create pod'}
        </button>
      </form>
    </Section>
  );
}

function PodDetail({ id }: { id: string }) {
  const pod = useQuery({
    queryKey: ['pod', id],
    queryFn: () => api<PodV2View>(`/v2/pods/${id}`),
    refetchInterval: (q) =>
      q.state.data && q.state.data.status !== q.state.data.desiredStatus ? 1000 : 4000,
  });
  const act = useAction(
    (action: PublishedPodAction) =>
      api<PodV2View | undefined>(`/v2/pods/${id}/action`, { method: 'POST', body: { action } }),
    [['pod', id], ['pods']],
  );
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
          {p.statusReason && <span className="muted"> {p.statusReason}</span>}
        </p>
        <WriteOnly>
          <div className="row" aria-label="Pod actions" role="group">
            {p.actions
              .filter((a) => !(p.cluster && a === 'terminate'))
              .map((action) => (
                <button
                  key={action}
                  type="button"
                  className={action === 'terminate' ? 'danger' : undefined}
                  disabled={act.isPending}
                  onClick={() => {
                    if (action !== 'terminate' || window.confirm(`Terminate pod ${p.name}?`))
                      act.mutate(action);
                  }}
                >
                  {act.isPending && act.variables === action
                    ? `${ACTION_LABELS[action]}…`
                    : ACTION_LABELS[action]}
                </button>
              ))}
          </div>
          <ErrorBox error={act.error} />
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
          <dt>Last status change</dt>
          <dd>{when(p.lastStatusChange)}</dd>
        </dl>
      </Section>
      {p.status !== 'TERMINATED' && <PodLogs path={`/v2/pods/${id}/logs`} />}
    </>
  );
}

/** The logs of a pod, followed over the route's server-sent events while the section is open. */
export function PodLogs({ path }: { path: string }) {
  const [lines, setLines] = useState<PodLogLine[]>([]);
  const [state, setState] = useState<'connecting' | 'following' | 'ended'>('connecting');
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const abort = new AbortController();
    setLines([]);
    setError(null);
    setState('connecting');
    const received: PodLogLine[] = [];
    let scheduled = false;
    readEvents(
      `${path}?follow=true&tail=200`,
      (data, event) => {
        if (event === 'error') {
          setError(new Error((data as { detail?: string }).detail ?? 'reading the logs failed'));
          return;
        }
        setState('following');
        received.push(data as PodLogLine);
        if (!scheduled) {
          scheduled = true;
          requestAnimationFrame(() => {
            scheduled = false;
            setLines(received.slice(-1000));
          });
        }
      },
      abort.signal,
    ).then(
      () => setState('ended'),
      (e: unknown) => {
        if (!abort.signal.aborted) {
          setError(e);
          setState('ended');
        }
      },
    );
    return () => abort.abort();
  }, [path, attempt]);
  useEffect(() => {
    // The view keeps to its newest line (its own scroll, not the page's).
    const view = end.current;
    if (view) view.scrollTop = view.scrollHeight;
  }, [lines]);
  return (
    <Section
      title="Logs"
      actions={
        <span role="status" className="muted">
          {state === 'following' ? 'following' : state === 'connecting' ? 'connecting…' : 'stream ended'}
          {state === 'ended' && (
            <>
              {' '}
              <button type="button" className="secondary small" onClick={() => setAttempt((n) => n + 1)}>
                Follow again
              </button>
            </>
          )}
        </span>
      }
    >
      <ErrorBox error={error} />
      <div className="logs" tabIndex={0} aria-label="Log lines" role="log" ref={end}>
        {lines.length === 0 && <span className="muted">No lines yet.</span>}
        {lines.map((l, i) => (
          <div key={i} className={`log-${l.stream}`}>
            <span className="muted">{new Date(l.time).toLocaleTimeString()}</span> {l.line}
          </div>
        ))}
      </div>
    </Section>
  );
}
