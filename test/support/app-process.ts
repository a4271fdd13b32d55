import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { AppName } from '@app/contracts';
import { ROOT } from './paths.js';

/** Values that are `undefined` remove the variable. */
export type EnvOverrides = Record<string, string | undefined>;

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const STOP_GRACE_MS = 10_000;
const MAX_LOG_CHARS = 4 * 1024 * 1024;
const LAST_LINES = 40;

/** One app's child process (one replica), restartable, with its output kept in memory. */
export class AppProcess {
  readonly url: string;
  readonly metricsUrl: string;
  private child?: ChildProcess;
  private exited: Promise<ExitInfo> = Promise.resolve({ code: null, signal: null });
  private running = false;
  private output = '';
  private starts = 0;
  private readonly script: string;

  constructor(
    /** The app's name, `<app>#<n>` when it runs as replicas (for messages). */
    readonly app: string,
    readonly port: number,
    metricsPort: number,
    private env: Record<string, string>,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    this.metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    this.script = mainScript(app.split('#')[0] as AppName);
  }

  setEnv(overrides: EnvOverrides): void {
    this.env = withoutUndefined({ ...this.env, ...overrides });
  }

  start(): void {
    if (this.running) throw new Error(`${this.app} is already running`);
    this.starts += 1;
    if (this.starts > 1) this.append(`\n----- ${this.app} restarted (start ${this.starts}) -----\n`);
    const child = spawn(process.execPath, [this.script], {
      cwd: ROOT,
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.running = true;
    child.stdout?.on('data', (chunk: Buffer) => this.append(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => this.append(chunk.toString()));
    this.exited = new Promise<ExitInfo>((resolve) => {
      child.once('exit', (code, signal) => {
        this.running = false;
        resolve({ code, signal });
      });
      child.once('error', (error) => {
        this.append(`\n[test harness] could not start ${this.app}: ${error.message}\n`);
        this.running = false;
        resolve({ code: null, signal: null });
      });
    });
  }

  isRunning(): boolean {
    return this.running;
  }

  logs(): string {
    return this.output;
  }

  lastLines(count = LAST_LINES): string {
    const lines = this.output.trimEnd().split('\n');
    return lines.slice(-count).join('\n') || '(no output)';
  }

  async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const exited = this.exited.then((info) => ({ exited: info }));
    let last = 'no answer yet';
    while (Date.now() < deadline) {
      if (!this.running) {
        const info = await this.exited;
        throw new Error(
          `${this.app} ${describeExit(info)} before it was ready; its last output:\n${this.lastLines()}`,
        );
      }
      try {
        const response = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(2000) });
        const body = await response.text();
        if (response.status === 200) return;
        last = `${response.status} ${body.slice(0, 300)}`;
      } catch (error) {
        last = (error as Error).message;
      }
      await Promise.race([sleep(100), exited]);
    }
    throw new Error(
      `${this.app} was not ready within ${Math.round(timeoutMs / 1000)} s ` +
        `(last GET ${this.url}/readyz: ${last}); its last output:\n${this.lastLines()}`,
    );
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child?.kill(signal);
  }

  async kill(signal: NodeJS.Signals): Promise<ExitInfo> {
    if (this.running) this.child?.kill(signal);
    return this.exited;
  }

  async waitForExit(timeoutMs: number): Promise<ExitInfo> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `${this.app} did not exit within ${timeoutMs} ms; its last output:\n${this.lastLines()}`,
            ),
          ),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.child?.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const killLater = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.append(
          `\n[test harness] ${this.app} still running ${STOP_GRACE_MS} ms after SIGTERM: SIGKILL\n`,
        );
        this.child?.kill('SIGKILL');
        resolve();
      }, STOP_GRACE_MS);
    });
    try {
      await Promise.race([this.exited, killLater]);
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  private append(text: string): void {
    this.output += text;
    if (this.output.length > MAX_LOG_CHARS) this.output = this.output.slice(-MAX_LOG_CHARS / 2);
  }
}

export function mainScript(app: AppName): string {
  return join(ROOT, 'dist', 'apps', app, 'server.mjs');
}

/** What the apps get from the test process: enough to run, and none of its configuration or jest's flags. */
export function inheritedEnv(): EnvOverrides {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];
  return Object.fromEntries(keep.map((name) => [name, process.env[name]]));
}

export function withoutUndefined(env: EnvOverrides): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

function describeExit(info: ExitInfo): string {
  if (info.signal) return `was killed by ${info.signal}`;
  if (info.code !== null) return `exited with code ${info.code}`;
  return 'could not be started';
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
