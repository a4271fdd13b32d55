/**
 * What a template (and a pod made from neither a template nor its own size) gets when the request leaves it out:
 * pod-lifecycle applies them, and the web console shows the same values in its forms (it imports only types from
 * here, so it pins them with `typeof`: a change here fails the console's type-check until it follows).
 */

/** The container disk, GB. */
export const DEFAULT_CONTAINER_DISK_GB = 20;

/** Where a template's pod volume is mounted when it names no path: RunPod's default. */
export const DEFAULT_VOLUME_MOUNT_PATH = '/workspace';
