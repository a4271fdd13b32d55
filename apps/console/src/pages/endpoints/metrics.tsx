import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { EndpointMetrics, MetricsWindow } from '@app/contracts';
import { api } from '../../api';
import { BarChart, ErrorBox, Loading, Section } from '../../ui';
import { SelectInput } from '../../controls';
import { ColdStartPhases } from './cold-start-phases';

const WINDOWS: MetricsWindow[] = ['5m', '1h', '24h', '7d'];

export function Metrics({ id }: { id: string }) {
  const [window, setWindow] = useState<MetricsWindow>('1h');
  const metrics = useQuery({
    queryKey: ['endpoint', id, 'metrics', window],
    queryFn: () => api<EndpointMetrics>(`/v2/serverless/${id}/metrics?window=${window}`),
    refetchInterval: 15_000,
  });
  const m = metrics.data;
  const labels = m?.series.t.map((t) => new Date(t).toLocaleTimeString()) ?? [];
  return (
    <Section
      title="Metrics"
      actions={
        <SelectInput
          label="Window"
          value={window}
          onChange={setWindow}
          options={WINDOWS.map((w) => ({ id: w, label: w }))}
        />
      }
    >
      <ErrorBox error={metrics.error} />
      {!m ? (
        <Loading what="metrics" />
      ) : (
        <>
          <div className="charts">
            <BarChart title="Jobs completed" labels={labels} values={m.series.jobs.completed} />
            <BarChart title="Jobs failed" labels={labels} values={m.series.jobs.failed} />
            <BarChart title="Queue depth" labels={labels} values={m.series.queue.depth} />
            <BarChart
              title="Workers running"
              labels={labels}
              values={m.series.workers.running.map((v, i) => v + (m.series.workers.idle[i] ?? 0))}
            />
          </div>
          <ColdStartPhases metrics={m} />
        </>
      )}
    </Section>
  );
}
