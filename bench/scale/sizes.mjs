// The scale family's three sizes (issue 56): each a hundred times the demo's at the largest, so growth shows.
// `--quick` keeps the fleets and pods and shrinks what is slow to seed or to run (the audit trail, the admissions,
// L's endpoints), for a change's quick look; the targets at L are read from a full run.

const FULL = [
  { name: 'S', hosts: 100, pods: 1_000, endpoints: 10, auditEntries: 100_000, admissions: 150 },
  { name: 'M', hosts: 1_000, pods: 10_000, endpoints: 100, auditEntries: 1_000_000, admissions: 1_500 },
  { name: 'L', hosts: 10_000, pods: 100_000, endpoints: 1_000, auditEntries: 10_000_000, admissions: 15_000 },
];

const QUICK = {
  S: { auditEntries: 10_000, admissions: 50 },
  M: { auditEntries: 100_000, admissions: 100 },
  L: { auditEntries: 500_000, admissions: 150, endpoints: 300 },
};

/** The sizes of a run, smallest first; `only`: names to keep (S, M, L). */
export function sizesFor({ quick, only }) {
  return FULL.filter((size) => !only || only.includes(size.name)).map((size) => ({
    ...size,
    ...(quick ? QUICK[size.name] : {}),
    teams: 50,
    cohorts: 5,
  }));
}

export const SIZE_NAMES = FULL.map((size) => size.name);
