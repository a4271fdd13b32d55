import { setTimeout as sleep } from 'node:timers/promises';
import { startWorker, type Job } from '../index.js';

interface StreamInput {
  prompt?: string;
  tokens?: number;
  delayMs?: number;
}

/** A streaming "token generator": yields `tokens` chunks `{text, index}` (GET /stream), `delayMs` apart. */
async function* generate(job: Job): AsyncGenerator<{ text: string; index: number }> {
  const input = (job.input ?? {}) as StreamInput;
  const words = (input.prompt ?? 'the quick brown fox jumps over the lazy dog').split(/\s+/);
  const count = input.tokens ?? words.length;
  for (let index = 0; index < count; index++) {
    if (job.signal.aborted) return;
    if (input.delayMs) await sleep(input.delayMs, undefined, { signal: job.signal }).catch(() => undefined);
    yield { text: words[index % words.length], index };
  }
}

startWorker({ handler: generate, returnAggregateStream: true });
