import { Injectable } from '@nestjs/common';
import {
  Subjects,
  type Actor,
  type JobDetail,
  type JobDetailView,
  type JobLogWindow,
  type JobPage,
  type PodLogLine,
} from '@app/contracts';
import { QueryBus } from '@app/messaging';
import { EndpointAccess } from '../jobs/endpoint-access.js';
import { GatewayPayloads } from '../jobs/gateway-payloads.js';
import { PodLogReader } from '../logs/pod-log-reader.js';
import { encodeCursor, jobListQuery, type JobListParams } from './job-list-query.js';

/** The log window reaches this far before the job started and after it ended (a worker logs around its handler). */
export const LOG_MARGIN_MS = 5_000;
/** Lines of the window shown at most (the first ones). */
export const MAX_JOB_LOG_LINES = 500;
/** A slow or unreachable log stream gives no lines rather than failing the page. */
const LOG_READ_TIMEOUT_MS = 3_000;

/**
 * An endpoint's job history (docs/adr/0042-job-history.md): the queue broker keeps the jobs (`job.qry.list`,
 * `job.qry.detail`), once the endpoint is known to be the caller's (404 unknown, 403 another's; its short cache,
 * as /metrics asks: the console polls these routes). A job's detail adds its worker's log lines around it (ADR 20).
 */
@Injectable()
export class JobHistoryService {
  constructor(
    private readonly queries: QueryBus,
    private readonly access: EndpointAccess,
    private readonly payloads: GatewayPayloads,
    private readonly logs: PodLogReader,
  ) {}

  async list(endpointId: string, params: JobListParams, actor: Actor): Promise<JobPage> {
    const query = jobListQuery(endpointId, params);
    await this.access.ownedEndpoint(endpointId, actor);
    const page = await this.queries.query(Subjects.job.list, query, actor);
    return { jobs: page.jobs, next: encodeCursor(page.next) };
  }

  async get(endpointId: string, jobId: string, actor: Actor): Promise<JobDetail> {
    await this.access.ownedEndpoint(endpointId, actor);
    const job = await this.payloads.take(
      await this.queries.query(Subjects.job.detail, { endpointId, jobId }, actor),
    );
    return { ...job, logs: await this.logWindow(job) };
  }

  /** The lines its last worker printed from LOG_MARGIN_MS before it started to LOG_MARGIN_MS after it ended. */
  private async logWindow(job: JobDetailView): Promise<JobLogWindow | null> {
    if (!job.workerId || !job.startedAt) return null;
    const from = new Date(Date.parse(job.startedAt) - LOG_MARGIN_MS);
    const to = new Date((job.completedAt ? Date.parse(job.completedAt) : Date.now()) + LOG_MARGIN_MS);
    const upTo = to.toISOString();
    const lines: PodLogLine[] = [];
    let truncated = false;
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), LOG_READ_TIMEOUT_MS);
    try {
      await this.logs.read(
        job.workerId,
        { since: from, follow: false },
        (batch) => {
          for (const line of batch) {
            if (line.time > upTo) return void stop.abort(); // past the window: nothing later is wanted
            if (lines.length < MAX_JOB_LOG_LINES) lines.push(line);
            else truncated = true;
          }
        },
        stop.signal,
      );
    } catch {
      // No lines (the stream failing) is not worth failing the job's page for.
    } finally {
      clearTimeout(timer);
    }
    return { podId: job.workerId, from: from.toISOString(), to: upTo, lines, truncated };
  }
}
