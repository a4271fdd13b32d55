import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { podLogSubject, type PodLogBatch } from '@app/contracts';
import { ensureLogStream, NatsClient } from '@app/messaging';
import { PodLifecycleConfig } from '../pod-lifecycle.config.js';
import type { LoggedRun, LogSink, RunLog } from './log-sink.js';
import { BatchedRunLog } from './batched-run-log.js';
import { injectedSecrets, redactor } from './log-redaction.js';

/**
 * Ships the runtime's log lines to the LOGS stream (docs/adr/0020), which it declares with the configured
 * retention. Each pod has at most one open run log, its current generation's; a new run closes the previous one.
 * Lines are best effort: a publish that fails is logged here and its batch lost, the pod runs on.
 */
@Injectable()
export class LogShipper implements LogSink, OnModuleInit {
  private readonly logger = new Logger('logs');
  private readonly runs = new Map<string, { generation: number; log: RunLog }>();
  /** Closed logs whose last batches are being published. */
  private readonly draining = new Map<string, Promise<void>>();
  private failing = false;

  constructor(
    private readonly nats: NatsClient,
    private readonly config: PodLifecycleConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.REPLAY_MODE) return; // nothing runs, nothing prints
    await ensureLogStream(this.nats, {
      maxAgeMs: this.config.LOG_RETENTION_HOURS * 3600_000,
      maxBytes: this.config.LOG_RETENTION_MB * 1024 * 1024,
      maxMsgsPerSubject: this.config.LOG_BATCHES_PER_POD,
    });
  }

  open(run: LoggedRun): RunLog {
    const current = this.runs.get(run.podId);
    if (current?.generation === run.generation) return current.log;
    void current?.log.close();
    const entry = {
      generation: run.generation,
      log: new BatchedRunLog({
        podId: run.podId,
        generation: run.generation,
        redact: redactor(injectedSecrets(run)),
        publish: (batch) => this.publish(batch),
        // Forgotten as soon as the run ends: the secrets it redacts are not kept longer than the run.
        onClose: () => {
          if (this.runs.get(run.podId) === entry) this.runs.delete(run.podId);
          // Its last batches are still on their way: the end marker of `terminated` must come after them.
          const drained = entry.log.close().finally(() => {
            if (this.draining.get(run.podId) === drained) this.draining.delete(run.podId);
          });
          this.draining.set(run.podId, drained);
        },
      }),
    };
    this.runs.set(run.podId, entry);
    return entry.log;
  }

  /** The pod is stopped or handed to another replica: its run log is closed (what is buffered goes out). */
  async close(podId: string): Promise<void> {
    await this.runs.get(podId)?.log.close();
    await this.draining.get(podId);
  }

  /** Another replica drives these pods now (docs/adr/0018): their open logs are closed here. */
  async release(leaving: (podId: string) => boolean): Promise<void> {
    await Promise.all([...this.runs.keys()].filter(leaving).map((podId) => this.close(podId)));
  }

  /** The pod is terminated: after its last lines, a marker that ends every reader following it. */
  async terminated(podId: string, generation: number): Promise<void> {
    await this.close(podId);
    await this.publish({ podId, generation, lines: [], end: true });
  }

  async shutdown(): Promise<void> {
    await Promise.all([...this.runs.keys()].map((podId) => this.close(podId)));
  }

  private async publish(batch: PodLogBatch): Promise<void> {
    try {
      await this.nats.js.publish(this.nats.subject(podLogSubject(batch.podId)), JSON.stringify(batch));
      if (this.failing) this.logger.log('log lines are shipped again');
      this.failing = false;
    } catch (error) {
      // Once per outage, not once per batch: a chatty pod would otherwise flood pod-lifecycle's own log.
      if (!this.failing) this.logger.warn(`log lines are being lost: ${(error as Error).message}`);
      this.failing = true;
    }
  }
}
