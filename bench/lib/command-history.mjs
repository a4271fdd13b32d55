// A recorded history of job commands, made fast: submits, takes and dones published straight to the commands
// stream as the gateway's CommandBus publishes them (envelope, Nats-Msg-Id = command id, an outcome inbox), and
// applied by the running queue-broker like any other. The jobs are spread over `endpoints` endpoints, each
// submitted (`inFlight` submits going in all) and then taken, up to `batchSize` at a time, and finished by a worker
// of its own; the endpoints run side by side, so submits, takes and dones of different endpoints interleave in the
// stream, and across the broker's job and worker consumers.
import { commandIssuer } from './command-issuer.mjs';

const SYSTEM = { userId: 'bench', kind: 'user' };

/**
 * Records about `commands` commands (submits, takes and dones of `commands / (2 + 1/batchSize)` jobs) for the
 * endpoints `<endpointPrefix>-0…` and resolves once the broker has answered every one: `{ commands, seconds, rate }` (the
 * live system's record-and-apply rate).
 */
export async function recordJobHistory({
  nc,
  prefix,
  endpointPrefix,
  commands,
  endpoints = 8,
  batchSize = 8,
  inFlight = 64,
}) {
  const issuer = commandIssuer(nc, prefix, { timeoutMs: 300_000 });
  let issued = 0;
  const issue = async (subject, payload) => {
    issued++;
    const result = await issuer.issue(subject, payload, SYSTEM);
    if (!result.ok) throw new Error(`${subject}: ${result.error.code} ${result.error.message}`);
    return result.value;
  };

  const jobs = Math.round(commands / (2 + 1 / batchSize));
  const started = performance.now();
  // One endpoint at a time decides nothing by timing: its submits are all applied before its one worker takes,
  // so the live outcomes are the ones applying the commands in order gives (which a rebuild checks). The
  // endpoints run side by side, so their commands interleave in the stream.
  const endpointRun = async (e) => {
    const endpointId = `${endpointPrefix}-${e}`;
    const share = Math.floor(jobs / endpoints) + (e < jobs % endpoints ? 1 : 0);
    let next = 0;
    const submitter = async () => {
      while (next < share) {
        next++;
        await issue('job.cmd.submit', { endpointId, sync: false, input: { n: next } });
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.floor(inFlight / endpoints)) }, submitter));
    const workerId = `${endpointId}-worker`;
    for (let finished = 0; finished < share;) {
      const { jobs: taken } = await issue('worker.cmd.take', { endpointId, workerId, batchSize });
      if (!taken.length) {
        throw new Error(`${workerId} found the queue empty with ${share - finished} jobs left`);
      }
      await Promise.all(
        taken.map((job) =>
          issue('worker.cmd.done', {
            endpointId,
            workerId,
            jobId: job.id,
            hasOutput: true,
            progress: false,
            stopPod: false,
            output: { echo: job.input },
          }),
        ),
      );
      finished += taken.length;
    }
  };
  try {
    await Promise.all(Array.from({ length: endpoints }, (_, e) => endpointRun(e)));
  } finally {
    issuer.close();
  }
  const seconds = (performance.now() - started) / 1000;
  return { commands: issued, jobs, seconds, rate: issued / seconds };
}
