import type { PodLogLine } from '@app/contracts';
import type { RunningSystem } from '../support/system.js';

/** A shell loop printing `line 1`, `line 2`, … every `everyS` seconds, after what `first` prints. */
export function printer(first: string, everyS = 0.1): string[] {
  return ['/bin/sh', '-c', `${first}; i=1; while true; do echo "line $i"; i=$((i+1)); sleep ${everyS}; done`];
}

/** The numbers of the `line N` lines, in the order they came. */
export function numbered(lines: PodLogLine[]): number[] {
  return lines.flatMap((l) => (/^line (\d+)$/.exec(l.line) ? [Number(/\d+/.exec(l.line)![0])] : []));
}

/**
 * Reads a logs route as server-sent events until `enough` says so (then disconnects) or the server ends the
 * stream; returns the lines received and whether the server ended it.
 */
export async function readEvents(
  system: RunningSystem,
  key: string,
  path: string,
  enough: (lines: PodLogLine[]) => boolean,
  timeoutMs = 15_000,
): Promise<{ status: number; contentType: string; lines: PodLogLine[]; ended: boolean }> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  const response = await fetch(`${system.url('gateway')}${path}`, {
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    signal: abort.signal,
  });
  const lines: PodLogLine[] = [];
  let ended = false;
  try {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      const events = buffer.split('\n\n');
      buffer = events.pop() ?? '';
      for (const event of events) {
        const data = event.split('\n').find((l) => l.startsWith('data: '));
        if (data) lines.push(JSON.parse(data.slice('data: '.length)) as PodLogLine);
      }
      if (enough(lines)) break;
    }
    ended = !enough(lines);
  } catch (error) {
    if (!abort.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', lines, ended };
}
