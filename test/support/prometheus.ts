import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePorts } from './ports.js';

/**
 * A real Prometheus server for e2e tests (`$PROMETHEUS_PATH`, or Debian's `prometheus` package, which
 * scripts/lib/infra-apps.mjs installs): a generated config scraping the given targets every second, evaluating the
 * given rule groups every second, its data in a temporary directory, listening on a free port of 127.0.0.1.
 */
export interface PrometheusServer {
  readonly url: string;
  /** GET `/api/v1/<path>`; the `data` of a successful answer. */
  api<T>(path: string): Promise<T>;
  /** Everything it wrote (its own log), for failure messages. */
  logs(): string;
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** Job name → `host:port` targets, scraped at `/metrics`. */
  jobs: Record<string, string[]>;
  /** Rule groups as a rule file holds them (`groups:`). */
  ruleGroups: unknown[];
  intervalSeconds?: number;
}

export async function startPrometheus(options: PrometheusOptions): Promise<PrometheusServer> {
  const interval = `${options.intervalSeconds ?? 1}s`;
  const dir = mkdtempSync(join(tmpdir(), 'gpucp-prometheus-'));
  writeFileSync(join(dir, 'rules.yaml'), stringify({ groups: options.ruleGroups }));
  writeFileSync(
    join(dir, 'prometheus.yml'),
    stringify({
      global: { scrape_interval: interval, scrape_timeout: interval, evaluation_interval: interval },
      rule_files: ['rules.yaml'],
      scrape_configs: Object.entries(options.jobs).map(([job, targets]) => ({
        job_name: job,
        metrics_path: '/metrics',
        static_configs: [{ targets }],
      })),
    }),
  );
  const [port] = await freePorts(1);
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child: ChildProcess = spawn(
    process.env.PROMETHEUS_PATH || '/usr/bin/prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const server: PrometheusServer = {
    url,
    async api<T>(path: string): Promise<T> {
      const response = await fetch(`${url}/api/v1/${path}`);
      const body = (await response.json()) as { status: string; data: T; error?: string };
      if (body.status !== 'success') throw new Error(`prometheus /api/v1/${path}: ${body.error}`);
      return body.data;
    },
    logs: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited: ${output}`);
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return server;
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`prometheus not ready within 30 s: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
