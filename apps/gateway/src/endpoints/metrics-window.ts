import {
  DEFAULT_METRICS_WINDOW,
  DomainError,
  ErrorCode,
  METRICS_WINDOW_NAMES,
  type MetricsWindow,
} from '@app/contracts';

/** `?window=` of GET /v2/serverless/{id}/metrics: one of 5m, 1h, 24h, 7d (1h when absent); else a 422. */
export function metricsWindow(query: { window?: unknown }): MetricsWindow {
  const window = query.window;
  if (window === undefined || window === '') return DEFAULT_METRICS_WINDOW;
  if (Array.isArray(window)) {
    throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [
      'window must be given at most once',
    ]);
  }
  if (typeof window !== 'string' || !(METRICS_WINDOW_NAMES as string[]).includes(window)) {
    throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [
      `window must be one of ${METRICS_WINDOW_NAMES.join(', ')}; got ${JSON.stringify(window)}`,
    ]);
  }
  return window as MetricsWindow;
}
