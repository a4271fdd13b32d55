/**
 * What a history has made so far, as the test saw it answered (ids of the resources it may act on next). Actions
 * on things that are gone, refused or in the wrong state are part of the history too: their refusals are
 * recorded outcomes the rebuild must reproduce.
 */
export interface HistoryEndpoint {
  id: string;
  name: string;
  templateId: string;
  deleting: boolean;
}

export class HistoryWorld {
  readonly templates: string[] = [];
  readonly serverlessTemplates: string[] = [];
  readonly registries: string[] = [];
  readonly volumes: string[] = [];
  readonly pods: string[] = [];
  readonly clusters: string[] = [];
  readonly endpoints: HistoryEndpoint[] = [];
  /** Jobs by endpoint, newest last (kept short: actions pick among recent ones). */
  readonly jobs = new Map<string, string[]>();
  readonly keys: string[] = [];
  users = 0;
  /** The users made so far, by name: members a team may add. */
  readonly userNames: string[] = [];
  /** Teams (of the history's user, their first owner) and the users added to each. */
  readonly teams = new Map<string, string[]>();
  /** HTTP status (0: no answer; `graphql:<code>` for a GraphQL error) → how many requests got it, for the verdict. */
  readonly statuses: Record<string, number> = {};

  note(status: number | string): void {
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
  }

  liveEndpoints(): HistoryEndpoint[] {
    return this.endpoints.filter((e) => !e.deleting);
  }

  addJob(endpointId: string, jobId: string): void {
    const list = this.jobs.get(endpointId) ?? [];
    list.push(jobId);
    if (list.length > 40) list.shift();
    this.jobs.set(endpointId, list);
  }

  /** Removes `id` from `list` (a resource deleted). */
  static drop(list: string[], id: string): void {
    const at = list.indexOf(id);
    if (at >= 0) list.splice(at, 1);
  }
}
