/**
 * Subject scheme `<domain>.<kind>.<name>`: kind `cmd` (do something; one owner; recorded in the commands
 * stream), `evt` (something happened; one publisher; events stream), `qry` (read, request-reply, never captured by
 * a stream). Every subject below is unprefixed; the bus prepends the deployment's prefix (`NATS_PREFIX`), so test
 * runs and deployments sharing one NATS server never see each other.
 */
export const Domain = {
  Cluster: 'cluster',
  Catalog: 'catalog',
  Volume: 'volume',
  Placement: 'placement',
  Pod: 'pod',
  RegistryAuth: 'registry-auth',
  Template: 'template',
  Job: 'job',
  Worker: 'worker',
  Endpoint: 'endpoint',
  Account: 'account',
  Spend: 'spend',
  /** The audit trail: events only (`audit.evt.recorded`), written by every owner, kept by the gateway. */
  Audit: 'audit',
  /** Team GPU quotas and cohorts: commands and queries, owned by the scheduler that admits against them. */
  Quota: 'quota',
  /** The fleet as live state: hosts, their state and health (docs/adr/0039-live-fleet.md). */
  Fleet: 'fleet',
} as const;
export type Domain = (typeof Domain)[keyof typeof Domain];

/** The app that owns each domain: the only one that consumes its commands and answers its queries. */
export const DomainOwner = {
  [Domain.Cluster]: 'cluster-scheduler',
  [Domain.Catalog]: 'cluster-scheduler',
  [Domain.Volume]: 'cluster-scheduler',
  [Domain.Placement]: 'cluster-scheduler',
  [Domain.Pod]: 'pod-lifecycle',
  [Domain.RegistryAuth]: 'pod-lifecycle',
  [Domain.Template]: 'pod-lifecycle',
  [Domain.Job]: 'queue-broker',
  [Domain.Worker]: 'queue-broker',
  [Domain.Endpoint]: 'endpoint-autoscaler',
  [Domain.Account]: 'gateway',
  [Domain.Spend]: 'pod-lifecycle',
  [Domain.Audit]: 'gateway',
  [Domain.Quota]: 'cluster-scheduler',
  [Domain.Fleet]: 'cluster-scheduler',
} as const satisfies Record<Domain, AppName>;

export const APP_NAMES = [
  'gateway',
  'cluster-scheduler',
  'pod-lifecycle',
  'queue-broker',
  'endpoint-autoscaler',
] as const;
export type AppName = (typeof APP_NAMES)[number];

export function domainsOwnedBy(app: AppName): Domain[] {
  return (Object.entries(DomainOwner) as [Domain, AppName][])
    .filter(([, owner]) => owner === app)
    .map(([d]) => d);
}

export const Subjects = {
  audit: {
    /**
     * An audited command's entry (docs/adr/0035-audit-trail.md): written by its owner with the command's outcome (in
     * its transaction, or with its refusal's processed row), kept by the gateway in `gateway.audit_entries`.
     */
    recorded: 'audit.evt.recorded',
  },
  account: {
    /** Core NATS, published after commit: every gateway replica drops the principals it caches for it. */
    changed: 'account.evt.changed',
    /** Core NATS, after a console session ended or switched account: every gateway replica drops its copy. */
    sessionChanged: 'account.evt.session-changed',
    createUser: 'account.cmd.create-user',
    updateUser: 'account.cmd.update-user',
    deleteUser: 'account.cmd.delete-user',
    createKey: 'account.cmd.create-key',
    revokeKeys: 'account.cmd.revoke-keys',
    createTeam: 'account.cmd.create-team',
    renameTeam: 'account.cmd.rename-team',
    deleteTeam: 'account.cmd.delete-team',
    addMember: 'account.cmd.add-member',
    setMemberRole: 'account.cmd.set-member-role',
    removeMember: 'account.cmd.remove-member',
  },
  job: {
    submit: 'job.cmd.submit',
    submitMany: 'job.cmd.submit-many',
    cancel: 'job.cmd.cancel',
    retry: 'job.cmd.retry',
    purge: 'job.cmd.purge',
    setTtl: 'job.cmd.set-ttl',
    readStream: 'job.cmd.read-stream',
    sweep: 'job.cmd.sweep',
    /** A gateway's load-balancing request counts of the last few seconds (endpoint metrics). */
    recordLbRequests: 'job.cmd.record-lb-requests',
    rotateWebhookSecret: 'job.cmd.rotate-webhook-secret',
    webhookSecret: 'job.qry.webhook-secret',
    get: 'job.qry.get',
    health: 'job.qry.health',
    queueStats: 'job.qry.queue-stats',
    /** The queue statistics of many endpoints (the autoscaler's control loop, once per tick). */
    queueStatsMany: 'job.qry.queue-stats-many',
    metrics: 'job.qry.metrics',
    list: 'job.qry.list',
    detail: 'job.qry.detail',
    queued: 'job.evt.queued',
    changed: 'job.evt.changed',
    queuedMany: 'job.evt.queued-many',
    changedMany: 'job.evt.changed-many',
  },
  worker: {
    take: 'worker.cmd.take',
    done: 'worker.cmd.done',
    doneMany: 'worker.cmd.done-many',
    stream: 'worker.cmd.stream',
    ping: 'worker.cmd.ping',
    collectStops: 'worker.cmd.collect-stops',
    register: 'worker.cmd.register',
    list: 'worker.qry.list',
    stopRequested: 'worker.evt.stop-requested',
  },
  endpoint: {
    get: 'endpoint.qry.get',
    list: 'endpoint.qry.list',
    save: 'endpoint.cmd.save',
    delete: 'endpoint.cmd.delete',
    /** The control loop, once a deleted endpoint's workers are gone: its record goes (recorded, so replayed). */
    remove: 'endpoint.cmd.remove',
    drainWorkers: 'endpoint.cmd.drain-workers',
    saved: 'endpoint.evt.saved',
    deleted: 'endpoint.evt.deleted',
  },
  placement: {
    reserve: 'placement.cmd.reserve',
    release: 'placement.cmd.release',
    /** Holders preempted for a placement, in the transaction that freed their GPUs: pod-lifecycle stops them. */
    preempted: 'placement.evt.preempted',
  },
  quota: {
    set: 'quota.cmd.set',
    /** The scheduler's leader, every minute: each quota's use, for the charts (recorded, so a rebuild has them). */
    sample: 'quota.cmd.sample',
    get: 'quota.qry.get',
    list: 'quota.qry.list',
    history: 'quota.qry.history',
  },
  fleet: {
    register: 'fleet.cmd.register',
    cordon: 'fleet.cmd.cordon',
    uncordon: 'fleet.cmd.uncordon',
    drain: 'fleet.cmd.drain',
    remove: 'fleet.cmd.remove',
    reportHealth: 'fleet.cmd.report-health',
    /** The scheduler's leader, when a drain's deadline passed: pod-lifecycle stops what is left on the host. */
    expireDrains: 'fleet.cmd.expire-drains',
    listHosts: 'fleet.qry.list-hosts',
    getHost: 'fleet.qry.get-host',
    capacity: 'fleet.qry.capacity',
    hostChanged: 'fleet.evt.host-changed',
    drainExpired: 'fleet.evt.drain-expired',
  },
  pod: {
    statusChanged: 'pod.evt.status-changed',
    /** HOST_START_FAILURES pods in a row failed to start on a host: answered by a recorded fleet.cmd.report-health. */
    hostStartFailures: 'pod.evt.host-start-failures',
    create: 'pod.cmd.create',
    start: 'pod.cmd.start',
    stop: 'pod.cmd.stop',
    reset: 'pod.cmd.reset',
    terminate: 'pod.cmd.terminate',
    update: 'pod.cmd.update',
    observe: 'pod.cmd.observe',
    hostFailed: 'pod.cmd.host-failed',
    /** pod-lifecycle, on fleet.evt.host-changed and drain-expired (pod-host.commands.ts says which does what). */
    hostLost: 'pod.cmd.host-lost',
    hostNotice: 'pod.cmd.host-notice',
    hostDrained: 'pod.cmd.host-drained',
    /** pod-lifecycle, on the scheduler's placement.evt.preempted: the pods go EXITED with reason PREEMPTED. */
    preempt: 'pod.cmd.preempt',
    /** The simulated and local drivers make a host's GPU fail (tests, demos); reported as fleet.cmd.report-health. */
    injectGpuFault: 'pod.cmd.inject-gpu-fault',
    sealEnv: 'pod.cmd.seal-env',
    /** pod-lifecycle, on the scheduler's cluster.evt.created / deleted: recorded, so replayed where it was applied. */
    createClusterMembers: 'pod.cmd.create-cluster-members',
    terminateClusterMembers: 'pod.cmd.terminate-cluster-members',
    get: 'pod.qry.get',
    list: 'pod.qry.list',
    /** The same list as the management API v2 shows it (`PodV2View`), a page's size and cursor in its headers. */
    listV2: 'pod.qry.list-v2',
    listByCluster: 'pod.qry.list-by-cluster',
    listWorkerRuns: 'pod.qry.list-worker-runs',
    /** The state of many pods by id (the autoscaler's control loop, once per tick). */
    states: 'pod.qry.states',
    usage: 'pod.qry.usage',
  },
  spend: {
    setLimit: 'spend.cmd.set-limit',
    status: 'spend.qry.status',
  },
  template: {
    create: 'template.cmd.create',
    update: 'template.cmd.update',
    delete: 'template.cmd.delete',
    list: 'template.qry.list',
    get: 'template.qry.get',
    catalog: 'template.qry.catalog',
    created: 'template.evt.created',
    deleted: 'template.evt.deleted',
  },
  cluster: {
    create: 'cluster.cmd.create',
    delete: 'cluster.cmd.delete',
    rename: 'cluster.cmd.rename',
    get: 'cluster.qry.get',
    list: 'cluster.qry.list',
    listMembers: 'cluster.qry.list-members',
    created: 'cluster.evt.created',
    deleted: 'cluster.evt.deleted',
  },
  catalog: {
    gpuTypes: 'catalog.qry.gpu-types',
    cpuTypes: 'catalog.qry.cpu-types',
    dataCenters: 'catalog.qry.data-centers',
  },
  volume: {
    create: 'volume.cmd.create',
    update: 'volume.cmd.update',
    delete: 'volume.cmd.delete',
    get: 'volume.qry.get',
    list: 'volume.qry.list',
    usage: 'volume.qry.usage',
    created: 'volume.evt.created',
    deleted: 'volume.evt.deleted',
  },
  registryAuth: {
    create: 'registry-auth.cmd.create',
    update: 'registry-auth.cmd.update',
    delete: 'registry-auth.cmd.delete',
    list: 'registry-auth.qry.list',
    get: 'registry-auth.qry.get',
    created: 'registry-auth.evt.created',
    deleted: 'registry-auth.evt.deleted',
  },
} as const;

/** Per-domain query every owner answers: the recorded outcome of a command, for callers that stopped waiting. */
export function commandOutcomeSubject(domain: Domain): string {
  return `${domain}.qry.command-outcome`;
}

/** Every event subject of a domain (`job` → `job.evt.>`), for one consumer filter. */
export function domainEventsFilter(domain: Domain): string {
  return `${domain}.evt.>`;
}

/**
 * Core NATS request-reply subject of an owner's replay feed (the replay tool's way in; docs/adr/0025): a request
 * names recorded commands of that owner, which it applies in the order given, in one transaction where it can.
 */
export function replayFeedSubject(app: AppName): string {
  return `replay.${app}.apply`;
}

const DOMAINS: ReadonlySet<string> = new Set(Object.values(Domain));

/** The domain token of a subject (`registry-auth.cmd.create` → `registry-auth`). Asked for every message applied. */
export function domainOf(subject: string): Domain {
  const dot = subject.indexOf('.');
  const domain = dot < 0 ? subject : subject.slice(0, dot);
  if (!DOMAINS.has(domain)) throw new Error(`unknown domain in subject ${subject}`);
  return domain as Domain;
}

/** Stream names (prefixed at run time as `<prefix>_<name>`). */
export const Streams = {
  Commands: 'COMMANDS',
  Events: 'EVENTS',
  DeadLetters: 'DLQ',
  /** Containers' log lines (pods/pod-logs.contracts.ts), bounded by size and age rather than kept for replay. */
  Logs: 'LOGS',
} as const;

/**
 * Core NATS (never recorded) copy of an event, published by its owner right after the commit that wrote it, so
 * long polls wake without waiting for the outbox relay; the relayed event stays the durable path.
 */
export function hintSubject(eventSubject: string): string {
  return `hint.${eventSubject}`;
}

/**
 * The events that get a hint: those the gateway's long polls wait for (a job queued or changed, a worker asked to
 * stop). Nobody listens for the hint of any other event, so its owner does not publish one: a 250-pod
 * `cluster.evt.created` was serialised and sent a second time, ahead of its command's outcome, for no reader.
 */
export const HINTED_EVENTS: ReadonlySet<string> = new Set([
  Subjects.job.queued,
  Subjects.job.changed,
  Subjects.job.queuedMany,
  Subjects.job.changedMany,
  Subjects.worker.stopRequested,
]);

/** Where owners publish a command's outcome when the command names no inbox (see Headers.OutcomeTo). */
export function outcomeSubject(commandId: string): string {
  return `outcome.${commandId}`;
}
