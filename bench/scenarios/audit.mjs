// The audit trail's read (docs/adr/0035-audit-trail.md): a user of its own records 10,000 commands through the API
// (template updates, one in ten of an unknown template, refused: both make an entry), the gateway keeps their
// entries, then each round sends sequential GETs of a filtered page:
//   ours        GET /v2/audit?action=template.update&resourceId=<one template>&limit=50 (one index range of a
//               trail of 10,000 entries), and the unfiltered first page;
//   baseline    a bare authenticated route of the same gateway: GET /v2/account/api-keys (the same key check, rate
//               limit and one small indexed read), so the ratio is what reading the trail adds.
import { client, createUser } from '../lib/api.mjs';
import { log } from '../../scripts/lib/infra.mjs';
import { pool } from '../lib/jobs-load.mjs';
import { sequentialGets } from '../lib/http-latency.mjs';
import { quiesce } from '../lib/quiesce.mjs';

const COMMANDS = 10_000;
const TEMPLATES = 20;
const CONCURRENCY = 16;

/** Records the history: template updates (each its own command and entry), every tenth refused (unknown id). */
async function record(api, templateIds) {
  const started = performance.now();
  let refused = 0;
  await pool(COMMANDS, CONCURRENCY, async (i) => {
    if (i % 10 === 9) {
      await api.request('PATCH', `/v2/templates/tpl-unknown-${i}`, { name: `x-${i}` }, { expect: [404] });
      refused++;
      return;
    }
    const id = templateIds[i % templateIds.length];
    await api.request('PATCH', `/v2/templates/${id}`, { name: `audit-${i % TEMPLATES}-${i}` });
  });
  const seconds = (performance.now() - started) / 1000;
  log(`recorded ${COMMANDS.toLocaleString('en')} commands (${refused} refused) in ${seconds.toFixed(1)} s`);
  return { seconds, refused };
}

/** Waits until the gateway has kept every entry (they come through the outbox relay and the events stream). */
async function untilKept(sql, userId, expected) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { rows } = await sql.query(
      'SELECT count(*)::int AS n FROM gateway.audit_entries WHERE account_id = $1',
      [userId],
    );
    if (rows[0].n >= expected) return rows[0].n;
    if (Date.now() > deadline) {
      throw new Error(`only ${rows[0].n} of ${expected} audit entries kept within 120 s`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

const side = (label, pick) => ({
  label,
  run: (state, { warmup }) => sequentialGets(pick(state), state.headers, warmup ? 20 : state.requests),
});

export default {
  id: 'audit',
  title: 'audit trail: a filtered page over 10,000 recorded commands',
  async setup(ctx) {
    const { userId, key } = await createUser(ctx, 'bench-audit');
    const gateway = ctx.system.url('gateway');
    const api = client(gateway, key);
    const templateIds = [];
    for (let t = 0; t < TEMPLATES; t++) {
      const created = await api.post('/v1/templates', { name: `audit-${t}`, imageName: 'runpod/base:0.6.2' });
      templateIds.push(created.id);
    }
    const recorded = await record(api, templateIds);
    const kept = await untilKept(ctx.sql, userId, COMMANDS + TEMPLATES);
    await ctx.sql.query('VACUUM (ANALYZE) gateway.audit_entries');
    const { seconds: quietAfterS } = await quiesce(ctx.system);
    const requests = ctx.quick ? 100 : 200;
    return {
      settings: {
        commands: COMMANDS,
        kept,
        recordSeconds: recorded.seconds,
        refused: recorded.refused,
        requests,
      },
      requests,
      quietAfterS,
      headers: { authorization: `Bearer ${key}` },
      urls: {
        filtered: `${gateway}/v2/audit?action=template.update&resourceId=${templateIds[3]}&limit=50`,
        first: `${gateway}/v2/audit?limit=50`,
        bare: `${gateway}/v2/account/api-keys`,
      },
    };
  },
  sides: {
    filtered: side('GET /v2/audit?action=…&resourceId=…&limit=50 (a filtered page)', (s) => s.urls.filtered),
    first: side('GET /v2/audit?limit=50 (the newest page, unfiltered)', (s) => s.urls.first),
    bare: side(
      'GET /v2/account/api-keys (a bare authenticated route of the same gateway)',
      (s) => s.urls.bare,
    ),
  },
  comparisons: [
    {
      label: 'filtered audit page p99 vs a bare authenticated route',
      unit: 'ms',
      better: 'lower',
      ours: ['filtered', 'p99'],
      baseline: ['bare', 'p99'],
    },
    {
      label: 'filtered audit page p50 vs a bare authenticated route',
      unit: 'ms',
      better: 'lower',
      ours: ['filtered', 'p50'],
      baseline: ['bare', 'p50'],
    },
    {
      label: 'newest audit page p99 vs a bare authenticated route',
      unit: 'ms',
      better: 'lower',
      ours: ['first', 'p99'],
      baseline: ['bare', 'p99'],
    },
  ],
  notes: (state) => [
    `history: ${state.settings.commands.toLocaleString('en')} template updates through the API (${state.settings.refused} refused), recorded in ${state.settings.recordSeconds.toFixed(1)} s; ${state.settings.kept.toLocaleString('en')} entries kept for the account`,
    `${state.requests} sequential requests per round and side (one connection); measured once the apps were idle (waited ${state.quietAfterS.toFixed(1)} s)`,
  ],
};
