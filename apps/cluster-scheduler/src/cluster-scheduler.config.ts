import { Type } from 'class-transformer';
import { IsInt, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { BaseConfig } from '@app/config';

/** cluster-scheduler's settings, validated once at boot (see .env.example). */
export class ClusterSchedulerConfig extends BaseConfig {
  override HTTP_PORT = 8081;
  override METRICS_PORT = 9081;

  /**
   * The catalog loaded at boot, and the hosts that seed an empty fleet (after that, hosts change by `fleet.cmd.*`
   * commands); relative paths resolve against the working directory.
   * `node scripts/generate-fleet.mjs --hosts 10000 > fleet.json` makes a large simulated one.
   */
  @IsString()
  @MinLength(1)
  FLEET_FILE = 'apps/cluster-scheduler/fleet/default-fleet.json';

  /** IPv4 pool the clusters' overlay CIDRs are carved from; each cluster gets a block sized to its pods. */
  @Matches(/^(\d{1,3}\.){3}\d{1,3}\/([89]|1\d|2[0-4])$/, {
    message: 'OVERLAY_POOL must be an IPv4 CIDR with a prefix of /8 to /24, e.g. 10.128.0.0/12',
  })
  OVERLAY_POOL = '10.128.0.0/12';

  /** UDP port of the VXLAN overlay (IANA's 4789 by default). */
  @IsInt()
  @Min(1)
  @Max(65535)
  @Type(() => Number)
  VXLAN_PORT = 4789;

  /** Range of VXLAN network identifiers handed to clusters (24-bit). */
  @IsInt()
  @Min(1)
  @Max(16777215)
  @Type(() => Number)
  VXLAN_ID_MIN = 1;

  @IsInt()
  @Min(1)
  @Max(16777215)
  @Type(() => Number)
  VXLAN_ID_MAX = 16777215;

  /** Image of the member pods when a cluster create names none. */
  @IsString()
  @MinLength(1)
  @MaxLength(512)
  CLUSTER_DEFAULT_IMAGE = 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04';

  /** Container disk (GB) of the member pods when a cluster create names none. */
  @IsInt()
  @Min(1)
  @Type(() => Number)
  CLUSTER_DEFAULT_DISK_GB = 20;

  /** How many times a create re-plans after losing a race for the same GPUs, VXLAN id or CIDR. */
  @IsInt()
  @Min(1)
  @Max(50)
  @Type(() => Number)
  PLACEMENT_MAX_ATTEMPTS = 8;

  /**
   * At most this many workloads of one cohort (of one account, without a cohort) are preempted per minute: a
   * burst of high-priority requests waits rather than emptying a cohort.
   */
  @IsInt()
  @Min(0)
  @Max(10_000)
  @Type(() => Number)
  PREEMPTIONS_PER_MINUTE = 20;

  /** How often the leader samples every quota's use for the charts (quota.cmd.sample); 0: never. */
  @IsInt()
  @Min(0)
  @Type(() => Number)
  QUOTA_SAMPLE_INTERVAL_MS = 60_000;

  /** A drain's deadline when the drain names none: seconds until the pods left on the host are stopped. */
  @IsInt()
  @Min(0)
  @Max(7 * 24 * 3600)
  @Type(() => Number)
  FLEET_DRAIN_DEADLINE_S = 3600;

  /** How often the leader looks for a drain whose deadline passed (then records fleet.cmd.expire-drains); 0: never. */
  @IsInt()
  @Min(0)
  @Type(() => Number)
  FLEET_DRAIN_CHECK_MS = 5000;
}
