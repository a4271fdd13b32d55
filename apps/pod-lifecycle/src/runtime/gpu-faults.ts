import type { InjectGpuFaultCommand, ReportHostHealthCommand } from '@app/contracts';

/**
 * What the NVIDIA driver's Xid errors mean (NVIDIA's Xid catalog), for the sentence a fault is reported with. 13,
 * 31, 43 and 45 are most often the application's doing (the device plugin ignores them); the others point at the
 * GPU, its memory, its interconnect or its firmware.
 */
export const XID_MEANINGS: Readonly<Record<number, string>> = {
  13: 'graphics engine exception, usually an illegal memory access by the application',
  31: 'GPU memory page fault, usually an illegal address used by the application',
  43: 'GPU stopped processing, a fault of the application (the GPU stays usable)',
  45: 'preemptive cleanup after earlier errors, the application was stopped',
  48: 'double-bit ECC error',
  61: 'internal micro-controller breakpoint or warning',
  62: 'internal micro-controller halt',
  63: 'ECC page retirement or row remapping recorded',
  64: 'ECC page retirement or row remapping failed',
  74: 'NVLink error',
  79: 'GPU has fallen off the bus',
  92: 'high single-bit ECC error rate',
  94: 'contained uncorrectable ECC error, the application must restart',
  95: 'uncontained uncorrectable ECC error, the GPU must be reset',
  119: 'GSP RPC timeout, the GPU System Processor stopped answering',
  120: 'GSP error',
};

/**
 * The health report of an injected fault, as a real runtime would send it: `Xid 79 on GPU 3 (GPU has fallen off the
 * bus)`, `uncorrectable ECC error on GPU 0`. GPU 0 when none is named; Xid 79 when no Xid is.
 */
export function gpuFaultReport(fault: InjectGpuFaultCommand): ReportHostHealthCommand {
  const gpuIndex = fault.gpuIndex ?? 0;
  let reason: string;
  if (fault.kind === 'ECC') reason = `uncorrectable ECC error on GPU ${gpuIndex}`;
  else {
    const xid = fault.xid ?? 79;
    const meaning = XID_MEANINGS[xid];
    reason = `Xid ${xid} on GPU ${gpuIndex}${meaning ? ` (${meaning})` : ''}`;
  }
  return { hostId: fault.hostId, healthy: false, source: 'runtime', code: fault.kind, reason, gpuIndex };
}
