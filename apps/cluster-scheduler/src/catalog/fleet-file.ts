import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsIP,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { GPU_TIERS, REGION_CODES, validatePlain, type GpuTier, type RegionCode } from '@app/contracts';
import {
  DEFAULT_CONTAINER_DISK_PER_GB_HR,
  DEFAULT_NETWORK_VOLUME_PER_GB_HR,
  defaultCpuPrice,
  defaultGpuPrice,
} from './prices.js';

/** The fleet file's shape (JSON): the catalog and the hosts. Validated in full before anything is written. */
export class FleetGpuType {
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  id: string;

  @IsString()
  @MinLength(1)
  displayName: string;

  @IsString()
  @MinLength(1)
  manufacturer: string;

  @IsInt()
  @Min(1)
  memoryInGb: number;

  @IsInt()
  @Min(1)
  @Max(64)
  maxCount: number;

  @IsIn(GPU_TIERS)
  tier: GpuTier;

  /** Per GPU per hour (in the operator's currency); defaults to `defaultGpuPrice(memoryInGb)`. */
  @IsOptional()
  @IsNumber({ maxDecimalPlaces: 6 })
  @Min(0)
  @Max(1000)
  pricePerHr?: number;
}

export class FleetCpuType {
  @IsString()
  @MinLength(1)
  id: string;

  @IsString()
  @MinLength(1)
  displayName: string;

  @IsInt()
  @Min(1)
  cores: number;

  @IsInt()
  @Min(1)
  threadsPerCore: number;

  /** Per CPU pod (one slot) per hour; defaults to `defaultCpuPrice(cores, threadsPerCore)`. */
  @IsOptional()
  @IsNumber({ maxDecimalPlaces: 6 })
  @Min(0)
  @Max(1000)
  pricePerHr?: number;
}

export class FleetDataCenter {
  @IsString()
  @Matches(/^[A-Z]{2,4}(-[A-Z]{2,4})?-\d{1,3}$/, { message: 'id must look like US-TX-3 or EU-RO-1' })
  id: string;

  @IsString()
  @MinLength(1)
  name: string;

  @IsIn(REGION_CODES)
  region: RegionCode;
}

export class FleetHost {
  @IsString()
  @Matches(/^[a-z0-9][a-z0-9.-]{0,127}$/, {
    message: 'id must be lower-case letters, digits, dots and dashes',
  })
  id: string;

  @IsString()
  dataCenterId: string;

  @IsOptional()
  @IsString()
  gpuTypeId: string | null;

  @IsInt()
  @Min(0)
  @Max(64)
  gpuCount: number;

  @IsOptional()
  @IsString()
  cpuTypeId: string | null;

  @IsInt()
  @Min(0)
  @Max(1024)
  cpuSlots: number;

  @IsIP(4)
  publicIp: string;

  /** `[first, last]` public port, inclusive. */
  @IsArray()
  @ArrayMinSize(2)
  @ArrayMaxSize(2)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(65535, { each: true })
  portRange: [number, number];
}

/** Storage prices per GB-hour; each defaults (prices.ts). */
export class FleetPrices {
  @IsOptional()
  @IsNumber({ maxDecimalPlaces: 8 })
  @Min(0)
  @Max(1)
  containerDiskPerGbHr?: number;

  @IsOptional()
  @IsNumber({ maxDecimalPlaces: 8 })
  @Min(0)
  @Max(1)
  networkVolumePerGbHr?: number;
}

export class FleetFile {
  @IsInt()
  @Min(1)
  @Max(1)
  version: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => FleetPrices)
  prices?: FleetPrices;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => FleetGpuType)
  gpuTypes: FleetGpuType[];

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => FleetCpuType)
  cpuTypes: FleetCpuType[];

  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => FleetDataCenter)
  dataCenters: FleetDataCenter[];

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => FleetHost)
  hosts: FleetHost[];
}

/** Parses and checks a fleet file (shape, then references between its parts); throws one error naming every fault. */
export function parseFleet(text: string, source: string): FleetFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`fleet file ${source} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const validated = validatePlain(FleetFile, raw);
  if (!validated.ok) {
    throw new Error(`fleet file ${source} is invalid: ${validated.errors.slice(0, 10).join('; ')}`);
  }
  const fleet = validated.value;
  const problems: string[] = [];
  const unique = (what: string, ids: string[]) => {
    const seen = new Set<string>();
    for (const id of ids) {
      if (seen.has(id)) problems.push(`${what} ${id} appears twice`);
      seen.add(id);
    }
    return seen;
  };
  const gpuIds = unique(
    'GPU type',
    fleet.gpuTypes.map((g) => g.id),
  );
  const cpuIds = unique(
    'CPU type',
    fleet.cpuTypes.map((c) => c.id),
  );
  const dcIds = unique(
    'data center',
    fleet.dataCenters.map((d) => d.id),
  );
  unique(
    'host',
    fleet.hosts.map((h) => h.id),
  );
  for (const host of fleet.hosts) {
    host.gpuTypeId ??= null;
    host.cpuTypeId ??= null;
    if (!dcIds.has(host.dataCenterId)) {
      problems.push(`host ${host.id}: unknown data center ${host.dataCenterId}`);
    }
    if (host.gpuTypeId !== null && !gpuIds.has(host.gpuTypeId)) {
      problems.push(`host ${host.id}: unknown GPU type ${host.gpuTypeId}`);
    }
    if ((host.gpuTypeId === null) !== (host.gpuCount === 0)) {
      problems.push(`host ${host.id}: gpuTypeId and gpuCount must both be set or both be empty`);
    }
    if (host.cpuTypeId !== null && !cpuIds.has(host.cpuTypeId)) {
      problems.push(`host ${host.id}: unknown CPU type ${host.cpuTypeId}`);
    }
    if (host.cpuSlots > 0 && host.cpuTypeId === null) {
      problems.push(`host ${host.id}: cpuSlots needs a cpuTypeId`);
    }
    if (host.portRange[0] > host.portRange[1]) {
      problems.push(`host ${host.id}: portRange must be [first, last]`);
    }
  }
  withDefaultPrices(fleet);
  if (problems.length) {
    throw new Error(`fleet file ${source} is inconsistent: ${problems.slice(0, 10).join('; ')}`);
  }
  return fleet;
}

/** Fills every price the file leaves out with its default, so the catalog always carries one. */
function withDefaultPrices(fleet: FleetFile): void {
  for (const gpu of fleet.gpuTypes) gpu.pricePerHr ??= defaultGpuPrice(gpu.memoryInGb);
  for (const cpu of fleet.cpuTypes) cpu.pricePerHr ??= defaultCpuPrice(cpu.cores, cpu.threadsPerCore);
  const prices = (fleet.prices ??= new FleetPrices());
  prices.containerDiskPerGbHr ??= DEFAULT_CONTAINER_DISK_PER_GB_HR;
  prices.networkVolumePerGbHr ??= DEFAULT_NETWORK_VOLUME_PER_GB_HR;
}
