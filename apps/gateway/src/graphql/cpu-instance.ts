import { DomainError, ErrorCode, type CpuTypeView } from '@app/contracts';

/** RunPod's CPU instance ids: `<flavor>-<vCPUs>-<memory GB>`, e.g. `cpu3c-2-4` (the Python SDK's example). */
const RUNPOD_INSTANCE = /^(.+)-(\d{1,4})-(\d{1,5})$/;

/**
 * `deployCpuPod(input: { instanceId })` → the fleet's CPU type. Either a CPU type id of the catalog (`cpu3c`) or
 * RunPod's instance id of that type (`cpu3c-2-4`): a CPU pod here takes one slot of its type's hosts, so the
 * vCPU and memory sizes are checked for form, not reserved (docs/api.md). Anything else is 422 naming
 * `instanceId` and the types there are.
 */
export function cpuTypeOfInstance(instanceId: string, cpuTypes: readonly CpuTypeView[]): string {
  const ids = new Set(cpuTypes.map((t) => t.id));
  if (ids.has(instanceId)) return instanceId;
  const runpod = RUNPOD_INSTANCE.exec(instanceId);
  if (runpod && ids.has(runpod[1]) && Number(runpod[2]) > 0 && Number(runpod[3]) > 0) return runpod[1];
  const known = [...ids].sort().join(', ') || 'none';
  throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [
    `instanceId must be a CPU type of the catalog (${known}) or RunPod's <type>-<vCPUs>-<memoryGB> of one ` +
      `(such as cpu3c-2-4); "${instanceId}" is neither`,
  ]);
}
