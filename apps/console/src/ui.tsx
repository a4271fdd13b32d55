import { createContext, useContext, useEffect, useId, useState, type ReactNode } from 'react';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import type { ApiKeyView, SsoSessionView, WaitReason } from '@app/contracts';
import { ApiError } from './api';
import { TextInput } from './controls';

/** The signed-in key: who it is and whether it may change anything (`full`), or only read. */
export interface Session {
  key: ApiKeyView;
  canWrite: boolean;
  signOut: () => void;
  /** Signed in by single sign-on: the user, the account acted for and the others (the team switcher). */
  sso?: SsoSessionView;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the signed-in console');
  return session;
}

/** Shown only to a key that may write: a read key sees no button that would fail. */
export function WriteOnly({ children }: { children: ReactNode }) {
  return useSession().canWrite ? <>{children}</> : null;
}

/** The route after `#`, e.g. `#/pods/abc` → ['pods', 'abc']. */
export function useRoute(): string[] {
  const read = () => window.location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const problem =
    error instanceof ApiError
      ? error
      : new ApiError(
          0,
          error instanceof Error ? error.message : typeof error === 'string' ? error : 'failed',
        );
  return (
    <div role="alert" className="error">
      <strong>{problem.detail}</strong>
      {problem.errors.length > 0 && (
        <ul>
          {problem.errors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * A label for a native control React Aria has no counterpart of here (number inputs, native selects of many
 * options, date and checkbox groups); text goes through `TextInput`, short choices through `SelectInput`.
 */
export function Field({
  label,
  hint,
  children,
}: {
  label: string;
  hint?: string;
  children: (id: string, describedBy: string | undefined) => ReactNode;
}) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id, hintId)}
      {hint && (
        <small id={hintId} className="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

/** Ports as the API takes them, comma-separated (`8888/http, 22/tcp`): templates, pods and clusters share it. */
export function PortsField({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <TextInput
      label="Ports"
      hint="Comma-separated, e.g. 8888/http, 22/tcp"
      value={value}
      onChange={onChange}
    />
  );
}

/** Environment variables, one KEY=value per line (`parseEnv` reads them). */
export function EnvField({
  value,
  onChange,
  hint = 'One KEY=value per line',
}: {
  value: string;
  onChange: (value: string) => void;
  hint?: string;
}) {
  return <TextInput label="Environment" hint={hint} multiline value={value} onChange={onChange} />;
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status.toLowerCase()}`}>{status}</span>;
}

/**
 * Why something waits (a pod not RUNNING, an endpoint's or a job's queue): the code as a badge (with a
 * WORKER_STARTING's phase), the sentence, and since when; the sentence is the badge's tooltip too, for tables.
 */
export function WaitReasonLine({
  reason,
  compact = false,
}: {
  reason?: WaitReason | null;
  compact?: boolean;
}) {
  if (!reason) return null;
  const phase = typeof reason.details?.phase === 'string' ? ` · ${reason.details.phase}` : '';
  const since = new Date(reason.since);
  return (
    <span className="wait-reason" data-code={reason.code}>
      <span className="badge badge-reason" title={reason.message}>
        {reason.code}
        {phase}
      </span>
      {!compact && (
        <>
          {' '}
          {reason.message}{' '}
          <span className="muted">
            since <time dateTime={reason.since}>{since.toLocaleString()}</time>
          </span>
        </>
      )}
    </span>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="muted">
      Loading {what}…
    </p>
  );
}

/**
 * A write to the API that refreshes what it changed, with its progress (`pending`) and its problem (`error`).
 */
export function useAction<A, R>(fn: (args: A) => Promise<R>, invalidate: QueryKey[] = []) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: async () => {
      await Promise.all(invalidate.map((queryKey) => client.invalidateQueries({ queryKey })));
    },
  });
}

export function Section({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <section aria-labelledby={id} className="card">
      <div className="card-head">
        <h2 id={id}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

export function money(amount: number): string {
  return `$${amount.toFixed(amount !== 0 && Math.abs(amount) < 0.01 ? 4 : 2)}`;
}

export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}
