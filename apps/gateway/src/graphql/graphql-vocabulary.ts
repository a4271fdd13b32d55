import { DomainError } from '@app/contracts';

/**
 * The pod create command's field names (REST /v1's, which pod-lifecycle and cluster-scheduler name in their
 * errors) → the argument names of `podFindAndDeployOnDemand` / `deployCpuPod`, so a GraphQL caller reads its own
 * vocabulary. A name absent here is the same in both.
 */
export const POD_DEPLOY_ARGUMENTS: Readonly<Record<string, string>> = {
  cpuFlavorId: 'instanceId',
  cpuTypeId: 'instanceId',
  dataCenterIds: 'dataCenterId',
  gpuTypeIds: 'gpuTypeId',
};

/** A leading field name, with the list index the commands add (`dataCenterIds.0`), which a scalar argument has not. */
const LEADING_FIELD = /^([A-Za-z]+)(\.\d+)?(?=\b)/;

/** One error entry with its leading field renamed by `names`. */
export function renameField(entry: string, names: Readonly<Record<string, string>>): string {
  return entry.replace(LEADING_FIELD, (whole, field: string) => names[field] ?? whole);
}

/** Runs `work`; a DomainError it throws comes back with its entries' field names renamed by `names`. */
export async function inArgumentNames<T>(
  names: Readonly<Record<string, string>>,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof DomainError) || !error.errors?.length) throw error;
    throw new DomainError(
      error.code,
      error.message,
      error.errors.map((entry) => renameField(entry, names)),
    );
  }
}
