import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength } from 'class-validator';
import { BaseConfig, IsKeyRing, KeyIdsApartFrom } from '@app/config';

export const RUNTIME_DRIVERS = ['simulated', 'local', 'kubernetes'] as const;
export type RuntimeDriverName = (typeof RUNTIME_DRIVERS)[number];

/** A Kubernetes label key: an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters. */
const LABEL_KEY = /^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/** pod-lifecycle's settings, validated once at boot (see .env.example and docs/pods.md). */
export class PodLifecycleConfig extends BaseConfig {
  override HTTP_PORT = 8082;
  override METRICS_PORT = 9082;

  /**
   * Key ring opening sealed registry passwords (`kid:base64key[,...]`, the same ring as the gateway's), used
   * only when a runtime driver pulls a private image. Without it, pods with a registry credential fail at pull
   * (ERROR, naming this variable); every other pod runs.
   */
  @IsOptional()
  @IsKeyRing()
  REGISTRY_AUTH_KEYS?: string;

  /**
   * Key ring opening the workers' API keys (the gateway's WORKER_KEY_RING), when a driver starts an endpoint's
   * worker, and sealing a worker pod's key still held in clear. A key sealed before this ring existed opens with
   * REGISTRY_AUTH_KEYS, by its key id (ADR 30). Without either, worker pods fail at start (ERROR, naming it).
   */
  @IsOptional()
  @IsKeyRing()
  @KeyIdsApartFrom('REGISTRY_AUTH_KEYS')
  WORKER_KEY_RING?: string;

  /**
   * Which runtime runs pods: `local` (catalog images as child processes, others simulated), `simulated`, or
   * `kubernetes` (one Kubernetes pod per pod, in KUBE_NAMESPACE).
   */
  @IsIn(RUNTIME_DRIVERS)
  RUNTIME_DRIVER: RuntimeDriverName = 'local';

  /**
   * The public templates of the catalog (`/v2/catalog/templates`), which anyone may start a pod or an endpoint
   * from and nobody but the operator changes: a JSON file, loaded at boot (see catalog-templates.json).
   */
  @IsString()
  @MinLength(1)
  CATALOG_TEMPLATES_FILE = 'apps/pod-lifecycle/catalog-templates.json';

  /** Simulated driver: PROVISIONING → STARTING (image pull, container create), in ms. */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  @Type(() => Number)
  SIM_PROVISION_MS = 1500;

  /** Simulated driver: STARTING → RUNNING, in ms. */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  @Type(() => Number)
  SIM_START_MS = 1500;

  /** Local driver: JSON file mapping image names to commands (see local-images.json). */
  @IsString()
  LOCAL_IMAGE_CATALOG = 'apps/pod-lifecycle/local-images.json';

  /** Local driver: where each pod's working directory (its container disk) lives. */
  @IsString()
  LOCAL_PODS_DIR = '.local/pods';

  /** Local driver: PATH inside local pods (no other variable of pod-lifecycle's environment reaches them). */
  @IsString()
  LOCAL_POD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

  /** Local driver: how long a started process must stay up before the pod is RUNNING, in ms. */
  @IsInt()
  @Min(0)
  @Max(600_000)
  @Type(() => Number)
  LOCAL_READY_MS = 300;

  /** Kubernetes driver: the namespace the pods' Kubernetes pods and pull secrets live in. */
  @Matches(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, { message: 'KUBE_NAMESPACE must be a DNS label' })
  KUBE_NAMESPACE = 'gpucp-pods';

  /** Kubernetes driver: a kubeconfig file; unset, the in-cluster service account is used. */
  @IsOptional()
  @IsString()
  KUBE_CONFIG?: string;

  /**
   * Kubernetes driver without the node watch (hosts from the fleet file): the node label holding a node's data
   * center id (pods go to a node of theirs). With the node watch, pods are pinned to their host's node by name.
   */
  @Matches(LABEL_KEY, { message: 'KUBE_NODE_LABEL_DATA_CENTER must be a Kubernetes label key' })
  KUBE_NODE_LABEL_DATA_CENTER = 'gpucp.io/data-center';

  /** Kubernetes driver: the node label holding a node's GPU type id (characters other than A-Z a-z 0-9 . _ - as -). */
  @Matches(LABEL_KEY, { message: 'KUBE_NODE_LABEL_GPU_TYPE must be a Kubernetes label key' })
  KUBE_NODE_LABEL_GPU_TYPE = 'gpucp.io/gpu-type';

  /** Kubernetes driver: name of a network volume's PersistentVolumeClaim; `{volumeId}` is the volume's id. */
  @Matches(/\{volumeId\}/, { message: 'KUBE_VOLUME_CLAIM_PATTERN must contain {volumeId}' })
  KUBE_VOLUME_CLAIM_PATTERN = 'volume-{volumeId}';

  /** Kubernetes driver: how often the driver lists its Kubernetes pods to report what changed, in ms. */
  @IsInt()
  @Min(100)
  @Max(600_000)
  @Type(() => Number)
  KUBE_POLL_MS = 2000;

  // The Kubernetes node watch (runtime/kubernetes/kubernetes-node-watch.ts): hosts from nodes.

  /**
   * Kubernetes driver: keep the scheduler's hosts in line with the cluster's nodes (list + watch, led by one
   * replica). Off: the fleet is managed through the API only.
   */
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'KUBE_NODE_WATCH must be true or false' })
  KUBE_NODE_WATCH = true;

  /** Node watch: the node label holding a node's data center id (the catalog's, e.g. `EU-RO-1`). */
  @Matches(LABEL_KEY, { message: 'KUBE_DATA_CENTER_LABEL must be a Kubernetes label key' })
  KUBE_DATA_CENTER_LABEL = 'topology.kubernetes.io/zone';

  /**
   * Node watch: GPU feature discovery's `nvidia.com/gpu.product` values mapped to catalog GPU type ids, as
   * `product=GPU type,...` (`NVIDIA-A100-SXM4-80GB=NVIDIA A100 80GB PCIe`). A product not mapped matches the catalog
   * type whose id or display name reads the same with dashes for spaces; a node matching none is skipped (logged).
   */
  @IsOptional()
  @Matches(/^[^=,]+=[^=,]+(,[^=,]+=[^=,]+)*$/, {
    message: 'KUBE_GPU_PRODUCT_MAP must be product=GPU type,...',
  })
  KUBE_GPU_PRODUCT_MAP?: string;

  /**
   * Node watch: node condition types that, True, make the host unhealthy (XID for an Xid check, ECC for the memory
   * watch, else GPU_UNHEALTHY). The default is what NVIDIA's GPU health monitors (NVSentinel, over the GPU
   * operator's DCGM) set. A node whose allocatable `nvidia.com/gpu` is below its capacity (the device plugin
   * withdrew GPUs after a critical Xid) is unhealthy whatever this says.
   */
  @IsString()
  KUBE_GPU_UNHEALTHY_CONDITIONS =
    'GpuXidError,SysLogsXIDError,SysLogsSXIDError,SysLogsGPUFallenOff,GpuMemWatch,GpuPcieWatch,GpuNvlinkWatch,' +
    'GpuInforomWatch,GpuThermalWatch,GpuPowerWatch,GpuDriverWatch,GpuAllWatch,GpuNvswitchFatalWatch';

  /** Node watch: labels that make the host unhealthy, `key` (any value) or `key=value`, comma-separated; none by default. */
  @IsOptional()
  @IsString()
  KUBE_GPU_UNHEALTHY_LABELS?: string;

  /** Node watch: pause before listing again after a failed list or watch, in ms. */
  @IsInt()
  @Min(100)
  @Max(600_000)
  @Type(() => Number)
  KUBE_NODE_RETRY_MS = 2000;

  /**
   * Start failures: this many pods in a row failing to start on one host (for a reason the host is blamed for: not
   * an image pull, a secret that cannot be opened or the user's command exiting), with no pod reaching RUNNING on
   * it between, report the host unhealthy (START_FAILURES).
   */
  @IsInt()
  @Min(1)
  @Max(1000)
  @Type(() => Number)
  HOST_START_FAILURES = 3;

  /** Logs (docs/adr/0020): how long a log line is kept, in hours (the LOGS stream's max_age). */
  @IsInt()
  @Min(1)
  @Max(24 * 365)
  @Type(() => Number)
  LOG_RETENTION_HOURS = 72;

  /** Logs: the most the LOGS stream keeps in all, in MiB; the oldest lines go first. */
  @IsInt()
  @Min(1)
  @Max(1_048_576)
  @Type(() => Number)
  LOG_RETENTION_MB = 1024;

  /**
   * Logs: the most batches kept per pod (each at most 32 KiB, usually a few lines), so one chatty pod cannot push
   * every other pod's lines out of the stream.
   */
  @IsInt()
  @Min(10)
  @Max(1_000_000)
  @Type(() => Number)
  LOG_BATCHES_PER_POD = 2000;

  // Load-balancing workers (docs/adr/0026-load-balancing-endpoints.md).

  /** How often each LB worker's `GET /ping` (on PORT_HEALTH) is polled; each answer goes to the gateways. */
  @IsInt()
  @Min(100)
  @Max(60_000)
  @Type(() => Number)
  LB_PING_INTERVAL_MS = 1000;

  /** How long a `/ping` may take; no answer by then counts as unhealthy. */
  @IsInt()
  @Min(50)
  @Max(60_000)
  @Type(() => Number)
  LB_PING_TIMEOUT_MS = 1000;

  /**
   * How long an LB worker may stay unhealthy (a `/ping` answer other than 200 or 204, or none) before its pod is
   * reported ERROR, which the autoscaler replaces. It is out of the rotation from the first bad answer.
   */
  @IsInt()
  @Min(1000)
  @Type(() => Number)
  LB_UNHEALTHY_AFTER_MS = 60_000;

  /** Longest an LB worker being stopped waits for the requests in flight on it to finish before it is stopped. */
  @IsInt()
  @Min(0)
  @Type(() => Number)
  LB_DRAIN_TIMEOUT_MS = 300_000;
}
