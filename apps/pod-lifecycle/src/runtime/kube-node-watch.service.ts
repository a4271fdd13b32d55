import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import {
  Domain,
  DomainError,
  ErrorCode,
  Subjects,
  type Actor,
  type HostListView,
  type HostView,
} from '@app/contracts';
import { AdvisoryLeadership } from '@app/database';
import { CommandBus, QueryBus } from '@app/messaging';
import { PodLifecycleConfig } from '../pod-lifecycle.config.js';
import type { FleetPort, KubernetesNodeWatch } from './kubernetes/kubernetes-node-watch.js';

export const NODE_WATCH_ACTOR: Actor = { userId: 'system:pod-lifecycle-node-watch', kind: 'system' };

/** How often `settled` asks JetStream for the fleet's backlog. */
const SETTLE_POLL_MS = 100;

/**
 * The scheduler's fleet over the bus: the node watch's commands with their derived ids, its hosts page by page, and
 * `settled` from the fleet domain's backlog in the commands stream (waiting up to `settleMs` for it to empty).
 */
export function busFleetPort(
  commands: Pick<CommandBus, 'execute' | 'backlog'>,
  queries: Pick<QueryBus, 'query'>,
  settleMs: number,
  actor: Actor = NODE_WATCH_ACTOR,
): FleetPort {
  return {
    execute: (step, commandId) => commands.execute(step.subject, step.payload, actor, { commandId }),
    async settled() {
      const deadline = Date.now() + settleMs;
      for (;;) {
        const backlog = await commands.backlog(Domain.Fleet);
        if (backlog === 0) return;
        if (Date.now() >= deadline) {
          throw new DomainError(
            ErrorCode.OwnerUnavailable,
            `cluster-scheduler has ${backlog} fleet command(s) left to apply`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
      }
    },
    async kubernetesHosts() {
      const hosts: HostView[] = [];
      let after: string | null = null;
      do {
        const page: HostListView = await queries.query(
          Subjects.fleet.listHosts,
          { source: 'kubernetes', limit: 1000, ...(after ? { after } : {}) },
          actor,
        );
        hosts.push(...page.hosts);
        after = page.next;
      } while (after);
      return hosts;
    },
    gpuTypes: () => queries.query(Subjects.catalog.gpuTypes, {}, actor),
  };
}

/**
 * With RUNTIME_DRIVER=kubernetes (and KUBE_NODE_WATCH on), one replica, the holder of the advisory lock
 * `pod-lifecycle/kube-node-watch`, keeps the scheduler's hosts in line with the cluster's nodes
 * (kubernetes/kubernetes-node-watch.ts). It starts watching when it becomes the leader and stops when it is no
 * longer; the next leader lists again, so nothing is lost in a handover. Off in REPLAY_MODE (the fleet's commands are
 * replayed from the command log).
 */
@Injectable()
export class KubeNodeWatchService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('runtime:kube-nodes');
  private leadership: AdvisoryLeadership | null = null;
  private watch: KubernetesNodeWatch | null = null;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly config: PodLifecycleConfig,
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const config = this.config;
    if (config.RUNTIME_DRIVER !== 'kubernetes' || !config.KUBE_NODE_WATCH || config.REPLAY_MODE) return;
    const [client, nodes, watch, node] = await Promise.all([
      import('./kubernetes/kubernetes-client.js'),
      import('./kubernetes/kubernetes-nodes.js'),
      import('./kubernetes/kubernetes-node-watch.js'),
      import('./kubernetes/kubernetes-node.js'),
    ]);
    this.watch = new watch.KubernetesNodeWatch(
      nodes.kubernetesNodes(client.kubernetesConfig(config.KUBE_CONFIG)),
      busFleetPort(this.commands, this.queries, config.COMMAND_TIMEOUT_MS),
      {
        dataCenterLabel: config.KUBE_DATA_CENTER_LABEL,
        unhealthyConditions: config.KUBE_GPU_UNHEALTHY_CONDITIONS.split(',')
          .map((c) => c.trim())
          .filter(Boolean),
        unhealthyLabels: node.parseLabelMatches(config.KUBE_GPU_UNHEALTHY_LABELS),
        productMap: node.parseProductMap(config.KUBE_GPU_PRODUCT_MAP),
        retryMs: config.KUBE_NODE_RETRY_MS,
        log: (level, line) => this.logger[level](line),
      },
    );
    this.leadership = new AdvisoryLeadership({
      databaseUrl: config.DATABASE_URL,
      name: 'pod-lifecycle/kube-node-watch',
      checkMs: config.LEADER_CHECK_MS,
      log: (line) => this.logger.log(line),
    });
    this.leadership.start();
    this.timer = setInterval(() => void this.follow(), config.LEADER_CHECK_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.watch?.stop();
    await this.leadership?.stop();
  }

  private async follow(): Promise<void> {
    const watch = this.watch;
    if (!watch || !this.leadership) return;
    if (this.leadership.isLeader && !watch.active) watch.start();
    else if (!this.leadership.isLeader && watch.active) await watch.stop();
  }
}
