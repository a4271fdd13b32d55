import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useQuery } from '@tanstack/react-query';
import type {
  BillingSummaryList,
  ClusterBillingList,
  NetworkVolumeBillingList,
  PodBillingList,
  ServerlessBillingList,
  UsageBucket,
} from '@app/contracts';
import { api, apiText } from '../api';
import { ErrorBox, Field, Loading, Section, money, when } from '../ui';
import { SelectInput } from '../controls';
import { TimeSeriesChart } from '../charts/time-series-chart';
import { useResourceNames, type Family } from './usage-names';

const FAMILIES: { value: Family; label: string }[] = [
  { value: 'pods', label: 'Pods' },
  { value: 'clusters', label: 'Clusters' },
  { value: 'serverless', label: 'Serverless endpoints' },
  { value: 'network-volumes', label: 'Network volumes' },
];
const RANGES = [
  { value: 'today', label: 'Last 24 hours', bucket: 'hour' as UsageBucket, days: 1 },
  { value: 'week', label: 'Last 7 days', bucket: 'day' as UsageBucket, days: 7 },
  { value: 'month', label: 'Last 30 days', bucket: 'day' as UsageBucket, days: 30 },
];

interface Row {
  time: string;
  resource: string;
  detail: string;
  amount: number;
}

type AnyList = PodBillingList | ClusterBillingList | ServerlessBillingList | NetworkVolumeBillingList;

function rowsOf(family: Family, list: AnyList): Row[] {
  return list.records.map((r) => {
    if ('networkVolumeId' in r) {
      return {
        time: r.time,
        resource: r.networkVolumeId,
        detail: `${r.gbHours.toFixed(2)} GB·h`,
        amount: r.amount,
      };
    }
    const resource = 'podId' in r ? r.podId : 'clusterId' in r ? r.clusterId : r.endpointId;
    return {
      time: r.time,
      resource,
      detail: `${r.gpuHours.toFixed(3)} GPU·h${r.gpuTypeId ? ` of ${r.gpuTypeId}` : ''} (${family})`,
      amount: r.totalAmount,
    };
  });
}

/** Spend per bucket as bars on a time axis, in USD (the shared chart: docs/adr/0038-console-charts.md). */
function SpendChart({
  bucket,
  records,
  span,
}: {
  bucket: UsageBucket;
  records: BillingSummaryList['records'];
  span: [Date, Date];
}) {
  return (
    <TimeSeriesChart
      className="spend-chart"
      title={`Spend per ${bucket}`}
      times={records.map((r) => Date.parse(r.time) / 1000)}
      stepSeconds={bucket === 'day' ? 86_400 : 3600}
      shape="bars"
      span={[span[0].getTime() / 1000, span[1].getTime() / 1000]}
      unit={{ label: 'USD', format: money }}
      lines={[{ label: 'Total', values: records.map((r) => r.totalAmount) }]}
    />
  );
}

export function UsagePage() {
  const [family, setFamily] = useState<Family>('pods');
  const [range, setRange] = useState('today');
  const [downloadError, setDownloadError] = useState<unknown>(null);
  const chosen = RANGES.find((r) => r.value === range) ?? RANGES[0];
  // The range ends at the next whole hour so that the current bucket is in it.
  const end = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000);
  const start = new Date(end.getTime() - chosen.days * 86_400_000);
  const query = `startTime=${start.toISOString()}&endTime=${end.toISOString()}&bucketSize=${chosen.bucket}`;
  const records = useQuery({
    queryKey: ['usage', family, query],
    queryFn: () => api<AnyList>(`/v2/billing/${family}?${query}`),
    refetchInterval: 30_000,
  });
  const summary = useQuery({
    queryKey: ['usage', 'summary', query],
    queryFn: () => api<BillingSummaryList>(`/v2/billing?${query}`),
    refetchInterval: 30_000,
  });
  const rows = records.data ? rowsOf(family, records.data) : [];
  const names = useResourceNames(family);
  const spend = summary.data?.records ?? [];
  const download = async () => {
    setDownloadError(null);
    try {
      const csv = await apiText(`/v2/billing/export?format=csv&${query}`);
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `usage-${start.toISOString().slice(0, 10)}-${end.toISOString().slice(0, 10)}.csv`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (e) {
      setDownloadError(e);
    }
  };
  return (
    <>
      <Section
        title="Spend"
        actions={
          <Button className="secondary" onPress={() => void download()}>
            Download CSV
          </Button>
        }
      >
        <div className="row filters">
          <SelectInput
            label="Range"
            value={range}
            onChange={setRange}
            options={RANGES.map((r) => ({ id: r.value, label: r.label }))}
          />
        </div>
        <ErrorBox error={summary.error ?? downloadError} />
        {summary.data && (
          <>
            <p>
              Total: <strong>{money(summary.data.metadata.totalAmount)}</strong>
            </p>
            <SpendChart bucket={chosen.bucket} records={spend} span={[start, end]} />
          </>
        )}
      </Section>
      <Section title="Per resource">
        <div className="row filters">
          <Field label="Resources">
            {(id) => (
              <select id={id} value={family} onChange={(e) => setFamily(e.target.value as Family)}>
                {FAMILIES.map((f) => (
                  <option key={f.value} value={f.value}>
                    {f.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <ErrorBox error={records.error} />
        {!records.data ? (
          <Loading what="usage" />
        ) : rows.length === 0 ? (
          <p className="muted">No usage in this range.</p>
        ) : (
          <table aria-label="Usage records">
            <thead>
              <tr>
                <th scope="col">Bucket</th>
                <th scope="col">Resource</th>
                <th scope="col">Usage</th>
                <th scope="col">Amount</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={`${r.time}-${r.resource}-${r.detail}`}>
                  <td>{when(r.time)}</td>
                  <td>
                    {names.get(r.resource) ?? <code>{r.resource}</code>}
                    {names.has(r.resource) && (
                      <>
                        {' '}
                        <code className="muted">{r.resource}</code>
                      </>
                    )}
                  </td>
                  <td>{r.detail}</td>
                  <td>{money(r.amount)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </>
  );
}
