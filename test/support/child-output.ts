import type { ChildProcess } from 'node:child_process';

/** A child process's stdout and stderr as they arrive, and a wait for a text to appear in them. */
export interface ChildOutput {
  output(): string;
  waitFor(text: string, timeoutMs: number): Promise<void>;
}

/** Collects `child`'s stdout and stderr from now on; `name` says whose output a failed wait shows. */
export function watchOutput(child: ChildProcess, name: string): ChildOutput {
  let output = '';
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return {
    output: () => output,
    waitFor: (text, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        if (output.includes(text)) return resolve();
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(
            new Error(`${name} did not print ${JSON.stringify(text)} within ${timeoutMs} ms:\n${output}`),
          );
        }, timeoutMs);
        const check = () => {
          if (!output.includes(text)) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve();
        };
        listeners.add(check);
      }),
  };
}
