import { useEffect, useRef, useState } from 'react';
import { Button } from 'react-aria-components';
import type { PodLogLine } from '@app/contracts';
import { readEvents } from '../../api';
import { ErrorBox, Section } from '../../ui';

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
              <Button className="secondary small" onPress={() => setAttempt((n) => n + 1)}>
                Follow again
              </Button>
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
