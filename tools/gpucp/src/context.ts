import type { Command } from 'commander';
import { ApiClient, ApiError } from './api-client.js';
import type { Output } from './output.js';
import { Progress } from './progress.js';

/** The default gateway: `npm start`'s. */
export const DEFAULT_API_URL = 'http://127.0.0.1:8080';

/** What every command gets: the API client, how to print, and progress (off with --json or --quiet). */
export interface Context {
  api: ApiClient;
  output: Output;
  progress(label: string): Progress;
}

interface GlobalOptions {
  apiUrl?: string;
  apiKey?: string;
  json?: boolean;
  quiet?: boolean;
}

/** Settings from the flags, else GPUCP_API_URL / GPUCP_API_KEY; a missing key is a usage error. */
export function contextOf(command: Command): Context {
  const options = command.optsWithGlobals<GlobalOptions>();
  const url = options.apiUrl ?? process.env.GPUCP_API_URL ?? DEFAULT_API_URL;
  const key = options.apiKey ?? process.env.GPUCP_API_KEY;
  if (!key) throw new ApiError('no API key: set GPUCP_API_KEY or pass --api-key cpk_…', 2);
  const json = options.json === true;
  return {
    api: new ApiClient({ url, key }),
    output: { json },
    progress: (label) => new Progress(label, !json && options.quiet !== true),
  };
}

/** `KEY=value` pairs (repeatable option) into an object. */
export function collectPairs(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new ApiError(`expected KEY=value, got "${value}"`, 2);
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

/** A repeatable option's values in a list. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** A whole number option (commander hands strings). */
export function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new ApiError(`expected a whole number, got "${value}"`, 2);
  return n;
}

/** Seconds into milliseconds, for `--timeout`. */
export const seconds = (value: number) => value * 1000;
