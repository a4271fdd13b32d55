// Writes a simulated fleet (catalog + hosts) for cluster-scheduler to stdout, deterministically from a seed:
//   node scripts/generate-fleet.mjs --hosts 10000 [--seed 1] [--data-centers 8] [--cpu-share 0.1] > fleet.json
// Then start cluster-scheduler with FLEET_FILE=fleet.json. The shipped default
// (apps/cluster-scheduler/fleet/default-fleet.json) is `--hosts 400 --seed 1`.
// Public IPs come from the documentation ranges (RFC 5737); hosts share an IP behind NAT, each with its own
// range of public ports.
import { parseArgs } from 'node:util';
import { prng } from './lib/prng.mjs';

const { values } = parseArgs({
  options: {
    hosts: { type: 'string', default: '400' },
    seed: { type: 'string', default: '1' },
    'data-centers': { type: 'string', default: '8' },
    'cpu-share': { type: 'string', default: '0.1' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  process.stdout.write(
    'usage: node scripts/generate-fleet.mjs --hosts N [--seed S] [--data-centers 1-8] [--cpu-share 0..1] > fleet.json\n',
  );
  process.exit(0);
}
const hostCount = Number(values.hosts);
const seed = Number(values.seed);
const dcCount = Number(values['data-centers']);
const cpuShare = Number(values['cpu-share']);
if (!Number.isInteger(hostCount) || hostCount < 1) fail('--hosts must be a positive integer');
if (!Number.isInteger(seed)) fail('--seed must be an integer');
if (!Number.isInteger(dcCount) || dcCount < 1 || dcCount > 8) fail('--data-centers must be 1..8');
if (!(cpuShare >= 0 && cpuShare < 1)) fail('--cpu-share must be in [0, 1)');

function fail(message) {
  process.stderr.write(`generate-fleet: ${message}\n`);
  process.exit(2);
}

const random = prng(seed);
const pick = (items) => items[Math.floor(random() * items.length)];

const gpuTypes = [
  {
    id: 'NVIDIA RTX A4000',
    displayName: 'RTX A4000',
    manufacturer: 'Nvidia',
    memoryInGb: 16,
    maxCount: 8,
    tier: 'AMPERE_16',
  },
  {
    id: 'NVIDIA RTX A5000',
    displayName: 'RTX A5000',
    manufacturer: 'Nvidia',
    memoryInGb: 24,
    maxCount: 8,
    tier: 'AMPERE_24',
  },
  {
    id: 'NVIDIA GeForce RTX 4090',
    displayName: 'RTX 4090',
    manufacturer: 'Nvidia',
    memoryInGb: 24,
    maxCount: 8,
    tier: 'ADA_24',
  },
  { id: 'NVIDIA L4', displayName: 'L4', manufacturer: 'Nvidia', memoryInGb: 24, maxCount: 8, tier: 'ADA_24' },
  {
    id: 'NVIDIA RTX A6000',
    displayName: 'RTX A6000',
    manufacturer: 'Nvidia',
    memoryInGb: 48,
    maxCount: 8,
    tier: 'AMPERE_48',
  },
  {
    id: 'NVIDIA A40',
    displayName: 'A40',
    manufacturer: 'Nvidia',
    memoryInGb: 48,
    maxCount: 8,
    tier: 'AMPERE_48',
  },
  {
    id: 'NVIDIA L40S',
    displayName: 'L40S',
    manufacturer: 'Nvidia',
    memoryInGb: 48,
    maxCount: 8,
    tier: 'ADA_48_PRO',
  },
  {
    id: 'NVIDIA RTX 6000 Ada Generation',
    displayName: 'RTX 6000 Ada',
    manufacturer: 'Nvidia',
    memoryInGb: 48,
    maxCount: 8,
    tier: 'ADA_48_PRO',
  },
  {
    id: 'NVIDIA A100 80GB PCIe',
    displayName: 'A100 PCIe',
    manufacturer: 'Nvidia',
    memoryInGb: 80,
    maxCount: 8,
    tier: 'AMPERE_80',
  },
  {
    id: 'NVIDIA A100-SXM4-80GB',
    displayName: 'A100 SXM',
    manufacturer: 'Nvidia',
    memoryInGb: 80,
    maxCount: 8,
    tier: 'AMPERE_80',
  },
  {
    id: 'NVIDIA H100 PCIe',
    displayName: 'H100 PCIe',
    manufacturer: 'Nvidia',
    memoryInGb: 80,
    maxCount: 8,
    tier: 'ADA_80_PRO',
  },
  {
    id: 'NVIDIA H100 80GB HBM3',
    displayName: 'H100 SXM',
    manufacturer: 'Nvidia',
    memoryInGb: 80,
    maxCount: 8,
    tier: 'ADA_80_PRO',
  },
];
/** Consumer and workstation cards sit 2, 4 or 8 to a host; data-center cards 8. */
const SMALL_HOSTS = new Set([
  'NVIDIA RTX A4000',
  'NVIDIA RTX A5000',
  'NVIDIA GeForce RTX 4090',
  'NVIDIA L4',
  'NVIDIA RTX A6000',
]);

const cpuTypes = [
  { id: 'cpu3c', displayName: 'Compute-Optimized (AMD EPYC 7003)', cores: 64, threadsPerCore: 2 },
  { id: 'cpu3g', displayName: 'General Purpose (AMD EPYC 7003)', cores: 64, threadsPerCore: 2 },
  { id: 'cpu5c', displayName: 'Compute-Optimized (AMD EPYC 9004)', cores: 96, threadsPerCore: 2 },
];

const allDataCenters = [
  { id: 'US-TX-3', name: 'Texas 3', region: 'US', weight: 5, gpus: [2, 4, 6, 8, 9, 11] },
  { id: 'EU-RO-1', name: 'Romania 1', region: 'RO', weight: 4, gpus: [0, 1, 2, 4, 5, 8] },
  { id: 'US-GA-1', name: 'Georgia 1', region: 'US', weight: 3, gpus: [1, 2, 3, 6, 8, 10] },
  { id: 'EU-CZ-1', name: 'Czechia 1', region: 'CZ', weight: 3, gpus: [2, 4, 6, 7, 8, 11] },
  { id: 'US-KS-2', name: 'Kansas 2', region: 'US', weight: 2, gpus: [0, 3, 5, 9, 10] },
  { id: 'EU-FR-1', name: 'France 1', region: 'FR', weight: 2, gpus: [2, 6, 8, 11] },
  { id: 'EU-GB-1', name: 'Great Britain 1', region: 'GB', weight: 1, gpus: [4, 7, 8, 9] },
  { id: 'EUR-NO-1', name: 'Norway 1', region: 'NO', weight: 1, gpus: [1, 3, 6, 11] },
];
const dataCenters = allDataCenters.slice(0, dcCount);
const totalWeight = dataCenters.reduce((sum, dc) => sum + dc.weight, 0);

function pickDataCenter() {
  let r = random() * totalWeight;
  for (const dc of dataCenters) {
    r -= dc.weight;
    if (r < 0) return dc;
  }
  return dataCenters[dataCenters.length - 1];
}

const IP_PREFIXES = ['203.0.113', '198.51.100', '192.0.2'];
const IPS = IP_PREFIXES.length * 254;
const PORT_BASE = 10000;
const PORT_SPACE = 50000;
const hostsPerIp = Math.max(1, Math.ceil(hostCount / IPS));
const portsPerHost = Math.min(1000, Math.floor(PORT_SPACE / hostsPerIp));
if (portsPerHost < 50) fail(`--hosts ${hostCount} leaves fewer than 50 public ports per host`);
const perIp = Math.floor(PORT_SPACE / portsPerHost);

const counters = new Map();
const hosts = [];
for (let i = 0; i < hostCount; i++) {
  const dc = pickDataCenter();
  const n = (counters.get(dc.id) ?? 0) + 1;
  counters.set(dc.id, n);
  const ipIndex = Math.floor(i / perIp);
  const slot = i % perIp;
  const portStart = PORT_BASE + slot * portsPerHost;
  const host = {
    id: `${dc.id.toLowerCase()}-h${String(n).padStart(5, '0')}`,
    dataCenterId: dc.id,
    publicIp: `${IP_PREFIXES[Math.floor(ipIndex / 254)]}.${(ipIndex % 254) + 1}`,
    portRange: [portStart, portStart + portsPerHost - 1],
  };
  if (random() < cpuShare) {
    Object.assign(host, { gpuTypeId: null, gpuCount: 0, cpuTypeId: pick(cpuTypes).id, cpuSlots: 16 });
  } else {
    const gpu = gpuTypes[pick(dc.gpus)];
    const gpuCount = SMALL_HOSTS.has(gpu.id) ? pick([2, 4, 8, 8]) : 8;
    Object.assign(host, { gpuTypeId: gpu.id, gpuCount, cpuTypeId: pick(cpuTypes).id, cpuSlots: 0 });
  }
  hosts.push(host);
}

const lines = [
  '{',
  '  "version": 1,',
  `  "gpuTypes": [\n${gpuTypes.map((g) => `    ${JSON.stringify(g)}`).join(',\n')}\n  ],`,
  `  "cpuTypes": [\n${cpuTypes.map((c) => `    ${JSON.stringify(c)}`).join(',\n')}\n  ],`,
  `  "dataCenters": [\n${dataCenters.map(({ id, name, region }) => `    ${JSON.stringify({ id, name, region })}`).join(',\n')}\n  ],`,
  `  "hosts": [\n${hosts.map((h) => `    ${JSON.stringify(h)}`).join(',\n')}\n  ]`,
  '}',
];
process.stdout.write(`${lines.join('\n')}\n`);
