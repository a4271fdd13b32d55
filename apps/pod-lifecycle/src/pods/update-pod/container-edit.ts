import { isDeepStrictEqual } from 'node:util';
import { unmaskEnv, type UpdatePodCommand } from '@app/contracts';
import type { PodEntity } from '../pod.entity.js';

/** The fields of a pod that make up its container: changing one of them needs a new container. */
export type ContainerChanges = Partial<
  Pick<PodEntity, 'image' | 'args' | 'env' | 'ports' | 'containerDiskGb' | 'registryAuthId'>
>;

/**
 * What an update changes of the pod's container: only the fields given whose value differs, so sending back what
 * a pod already has (as runpodctl does for the fields it merges) changes nothing and restarts nothing.
 */
export function containerChanges(pod: PodEntity, update: UpdatePodCommand): ContainerChanges {
  const asked: ContainerChanges = {
    image: update.imageName,
    args: update.dockerArgs,
    env: update.env && editedEnv(pod, update.env),
    ports: update.ports,
    containerDiskGb: update.containerDiskInGb,
    registryAuthId: update.containerRegistryAuthId,
  };
  return Object.fromEntries(
    Object.entries(asked).filter(
      ([field, value]) =>
        value !== undefined && !isDeepStrictEqual(value, pod[field as keyof ContainerChanges]),
    ),
  );
}

/**
 * The env an update asks for, read against the pod's: clients send back the env they read, where secret-looking
 * values are masked, so a masked value keeps the value it stands for; the variables the platform seals
 * (`secretEnv`, a worker's key) are not the user's to set, as at create.
 */
function editedEnv(pod: PodEntity, env: Record<string, string>): Record<string, string> {
  const own = Object.fromEntries(Object.entries(env).filter(([name]) => !(name in pod.secretEnv)));
  return unmaskEnv(own, pod.env);
}
