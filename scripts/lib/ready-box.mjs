// What `npm start` prints once every app is ready (scripts/start.mjs).
import { paint } from './infra.mjs';

/** `{ http, metrics }` from an app's "listening on" line (libs/platform bootstrap), undefined for other lines. */
export function boundFrom(line) {
  if (!line.startsWith('{') || !line.includes('"metrics"')) return undefined;
  try {
    const { http, metrics } = JSON.parse(line);
    return typeof http === 'string' && typeof metrics === 'string' ? { http, metrics } : undefined;
  } catch {
    return undefined;
  }
}

/** Where a bound address takes connections from: `0.0.0.0:8080` from everywhere, `127.0.0.1:…` this host only. */
function reach(bound) {
  if (/^(0\.0\.0\.0|\[::\]):/.test(bound)) return `${bound} (every interface)`;
  if (/^(127\.|\[::1\]:)/.test(bound)) return `${bound} (loopback only)`;
  return bound;
}

/** The box `npm start` ends with: what each app bound, the bootstrap key, where to go next. */
export function printBox(apps, key) {
  const width = Math.max(...apps.map((app) => app.label.length), 'API key'.length);
  const row = (name, value) => `${name.padEnd(width)}  ${value}`;
  // LOG_LEVEL above info hides the "listening on" lines: then the addresses are not known here.
  const bound = (app) =>
    app.bound
      ? `http ${reach(app.bound.http)}, metrics ${reach(app.bound.metrics)}`
      : `port ${app.port}, metrics port ${app.metricsPort} (bind addresses not logged at this LOG_LEVEL)`;
  const lines = [
    'GPU control plane is running',
    '',
    row(apps[0].label, `${bound(apps[0])}   ← the API`),
    ...apps.slice(1).map((app) => row(app.label, bound(app))),
    '',
    row('API key', key ?? '(created earlier; its only copy, .local/bootstrap-key, is missing)'),
    row('Console', `${apps[0].url}/console/ (sign in with the key)`),
    '',
    'Try:',
    `  curl -H "Authorization: Bearer ${key ?? '<key>'}" ${apps[0].url}/v1/containerregistryauth`,
    '',
    'Ctrl-C stops everything.',
  ];
  const inner = Math.max(...lines.map((line) => line.length));
  const framed = lines.map((line) => `│ ${line.padEnd(inner)} │`);
  framed[0] = framed[0].replace(lines[0], paint(lines[0], 'bold'));
  console.log([`┌${'─'.repeat(inner + 2)}┐`, ...framed, `└${'─'.repeat(inner + 2)}┘`].join('\n'));
}
