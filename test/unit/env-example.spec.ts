import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { ClusterSchedulerConfig } from '../../apps/cluster-scheduler/src/cluster-scheduler.config.js';
import { EndpointAutoscalerConfig } from '../../apps/endpoint-autoscaler/src/endpoint-autoscaler.config.js';
import { GatewayConfig } from '../../apps/gateway/src/gateway.config.js';
import { PodLifecycleConfig } from '../../apps/pod-lifecycle/src/pod-lifecycle.config.js';
import { QueueBrokerConfig } from '../../apps/queue-broker/src/queue-broker.config.js';
import { ROOT } from '../support/paths.js';

/** `.env.example` is the list of every variable: a config property it does not mention is a documentation bug. */
describe('.env.example', () => {
  const documented = new Set(
    readFileSync(join(ROOT, '.env.example'), 'utf8')
      .split('\n')
      .map((line) => /^#?\s*([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
      .filter((name): name is string => Boolean(name)),
  );

  it.each([
    ['gateway', GatewayConfig],
    ['cluster-scheduler', ClusterSchedulerConfig],
    ['pod-lifecycle', PodLifecycleConfig],
    ['queue-broker', QueueBrokerConfig],
    ['endpoint-autoscaler', EndpointAutoscalerConfig],
  ] as const)('lists every variable %s reads', (_app, configClass) => {
    const variables = new Set([
      ...Object.keys(new configClass()),
      ...getMetadataStorage()
        .getTargetValidationMetadatas(configClass, '', true, false)
        .map((m) => m.propertyName),
    ]);
    expect([...variables].filter((v) => !documented.has(v))).toEqual([]);
  });
});
