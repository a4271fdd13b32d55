import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../support/paths.js';

/** The built CLI, run as a process as a user would. */
export const GPUCP = join(ROOT, 'dist/tools/gpucp/gpucp.cli.js');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `gpucp ARGS` against `url` with `key` (GPUCP_API_URL, GPUCP_API_KEY only): its exit code and output. */
export function runGpucp(url: string, key: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [GPUCP, ...args],
      { env: { PATH: process.env.PATH, GPUCP_API_URL: url, GPUCP_API_KEY: key } },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** The value of `key: value` in a printed record. */
export function field(stdout: string, key: string): string {
  const match = new RegExp(`^${key}: (.*)$`, 'm').exec(stdout);
  if (!match) throw new Error(`no "${key}:" line in:\n${stdout}`);
  return match[1];
}
