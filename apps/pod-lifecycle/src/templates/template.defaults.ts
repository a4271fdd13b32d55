/** The container disk of a template, and of a pod made from neither a template nor its own size, in GB. */
export const DEFAULT_CONTAINER_DISK_GB = 20;

/** Where a template's pod volume is mounted when it names no path: RunPod's default. */
export const DEFAULT_VOLUME_MOUNT_PATH = '/workspace';
