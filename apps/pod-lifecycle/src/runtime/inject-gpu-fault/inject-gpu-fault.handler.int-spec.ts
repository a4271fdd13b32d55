import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects, deriveId } from '@app/contracts';
import { PodLifecycleHandlers } from '../../../../../test/support/pod-lifecycle-handlers.js';
import { PodLifecycleConfig } from '../../pod-lifecycle.config.js';
import { InjectGpuFaultHandler } from './inject-gpu-fault.handler.js';

/** pod.cmd.inject-gpu-fault over pod-lifecycle's schema, the scheduler's report-health stood in for. */

const HOST = 'gpu-host-1';
let app: PodLifecycleHandlers;

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('inject_gpu_fault');
  app.scheduler.answer(Subjects.fleet.reportHealth, (command) => ({
    hostId: command.hostId,
    state: 'UNHEALTHY',
    changed: true,
  }));
});

afterAll(async () => {
  await app?.stop();
});

describe('a simulated GPU fault', () => {
  it("is reported to the scheduler as the runtime's, with the Xid's meaning, under an id derived from the command", async () => {
    app.harness.register(new InjectGpuFaultHandler(app.config, app.scheduler.asBus()));
    const answer = await app.harness.send(
      Subjects.pod.injectGpuFault,
      { hostId: HOST, kind: 'XID', gpuIndex: 3, xid: 79 },
      { commandId: 'inject-1' },
    );
    expect(answer).toEqual({ hostId: HOST, state: 'UNHEALTHY', changed: true });
    const ecc = await app.harness.send(
      Subjects.pod.injectGpuFault,
      { hostId: HOST, kind: 'ECC' },
      { commandId: 'inject-2' },
    );
    expect(ecc.state).toBe('UNHEALTHY');
    const sent = app.scheduler.issued.filter((c) => c.subject === Subjects.fleet.reportHealth);
    expect(sent.map((c) => [c.payload, c.options?.commandId])).toEqual([
      [
        {
          hostId: HOST,
          healthy: false,
          source: 'runtime',
          code: 'XID',
          gpuIndex: 3,
          reason: 'Xid 79 on GPU 3 (GPU has fallen off the bus)',
        },
        deriveId('inject-1', 'report-health'),
      ],
      [
        {
          hostId: HOST,
          healthy: false,
          source: 'runtime',
          code: 'ECC',
          gpuIndex: 0,
          reason: 'uncorrectable ECC error on GPU 0',
        },
        deriveId('inject-2', 'report-health'),
      ],
    ]);
  });

  it('is NOT_AVAILABLE with real GPUs (the Kubernetes runtime), and the scheduler is not asked', async () => {
    const config = new PodLifecycleConfig();
    config.RUNTIME_DRIVER = 'kubernetes';
    app.harness.register(new InjectGpuFaultHandler(config, app.scheduler.asBus()));
    const before = app.scheduler.issued.length;
    const refusal = await app.harness.refusal(() =>
      app.harness.send(Subjects.pod.injectGpuFault, { hostId: HOST, kind: 'XID' }),
    );
    expect(refusal).toMatchObject({ code: ErrorCode.NotAvailable, wrote: [] });
    expect(refusal.message).toMatch(/only with the simulated and local runtimes; this one is kubernetes/);
    expect(app.scheduler.issued.length).toBe(before);
  });
});
