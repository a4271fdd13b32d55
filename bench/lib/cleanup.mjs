// What the benchmark must undo, in reverse order of creation, exactly once: on success, on failure and on
// Ctrl-C/SIGTERM (the signal handler runs the same list, then exits 130).
import { paint } from '../../scripts/lib/infra.mjs';

const tasks = [];
let running;

/** Registers an undo step; the latest registered runs first. */
export function defer(name, fn) {
  tasks.push({ name, fn });
}

/** Runs every registered step once (later calls wait for the same run); a failing step does not stop the rest. */
export function cleanup() {
  running ??= (async () => {
    while (tasks.length > 0) {
      const { name, fn } = tasks.pop();
      try {
        await fn();
      } catch (error) {
        console.error(paint(`warning: cleanup of ${name} failed: ${error?.message ?? error}`, 'yellow'));
      }
    }
  })();
  return running;
}

/**
 * On SIGINT, SIGTERM or SIGHUP: cleans up, then exits 130. Another signal more than a second later exits at once
 * (the `exit` hooks still SIGKILL the child processes); one within the second is the same Ctrl-C delivered twice
 * (the terminal sends it to npm and to this process, and npm forwards it).
 */
export function cleanUpOnSignals() {
  let interruptedAt = null;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (interruptedAt !== null) {
        if (performance.now() - interruptedAt > 1000) process.exit(130);
        return;
      }
      interruptedAt = performance.now();
      console.error(paint(`\n${signal}: stopping and cleaning up (again to skip the cleanup)`, 'red'));
      cleanup().finally(() => process.exit(130));
    });
  }
}
