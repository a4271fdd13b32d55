/**
 * Containers' log lines on the bus (docs/adr/0020-pod-logs.md). pod-lifecycle publishes them, already redacted,
 * in batches on `<prefix>.logs.<podId>` (the LOGS stream); the gateway reads a pod's subject to serve
 * `/v2/pods/{id}/logs` and a worker's logs.
 */

/** `system` lines are the runtime's own (the simulated driver's lifecycle, a process's end), not the container's. */
export type LogStreamName = 'stdout' | 'stderr' | 'system';

/** One line as the API serves it. */
export interface PodLogLine {
  /** ISO time the runtime read the line. */
  time: string;
  stream: LogStreamName;
  line: string;
  /** The run (pod generation) that printed it: a restart starts a new run. */
  generation: number;
}

/** One message of the LOGS stream: lines of one run in order, or the end of the pod's logs. */
export interface PodLogBatch {
  podId: string;
  generation: number;
  lines: { time: string; stream: LogStreamName; line: string }[];
  /** The pod was terminated: nothing follows, a following reader stops here. */
  end?: true;
}

/** The subject of a pod's log batches, without the deployment prefix. */
export function podLogSubject(podId: string): string {
  return `logs.${podId}`;
}

/** `GET /v2/pods/{id}/logs` (and a worker's) without `text/event-stream`: one page of lines, oldest first. */
export interface PodLogPage {
  lines: PodLogLine[];
}
