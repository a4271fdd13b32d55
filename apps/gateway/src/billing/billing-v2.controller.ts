import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  DomainError,
  ErrorCode,
  type Actor,
  type BillingSummaryList,
  type ClusterBillingList,
  type NetworkVolumeBillingList,
  type PodBillingList,
  type ServerlessBillingList,
  type UsageExport,
} from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { sendJsonBody, type JsonBody } from '../edge/json-body.js';
import { Operation, TextQuery } from '../openapi/openapi.decorators.js';
import { BillingRangeQuery } from './billing.decorators.js';
import { billingRange, type BillingQueryParams } from './billing-query.js';
import { formatExport } from './billing.mapper.js';
import { BillingService } from './billing.service.js';

const RANGE_ERROR = {
  422: 'a malformed time or bucketSize, startTime not before endTime, or too many buckets',
};

/**
 * `/v2/billing`: the caller's usage and its cost per resource and bucket, metered from recorded status changes
 * at the fleet's prices (ADR 21). Each pod counts in one family: a standalone pod under `pods`, a cluster member
 * under `clusters`, a serverless worker under `serverless` (`endpoints` is the same list).
 */
@ApiTags('Billing')
@Auth({ key: 'bearer' })
@Resource('billing')
@Controller('v2/billing')
export class BillingV2Controller {
  constructor(private readonly billing: BillingService) {}

  @Get()
  @BillingRangeQuery()
  @Operation('Total spend per bucket', { returns: 'BillingSummaryList', errors: RANGE_ERROR })
  summary(@Query() query: BillingQueryParams, @CurrentActor() actor: Actor): Promise<BillingSummaryList> {
    return this.billing.summary(query, actor);
  }

  @Get('pods')
  @BillingRangeQuery()
  @TextQuery('podId', 'only this pod')
  @Operation('Pod usage per pod and bucket', {
    returns: 'PodBillingList',
    serialized: true,
    errors: RANGE_ERROR,
  })
  async pods(
    @Query() query: BillingQueryParams & { podId?: string },
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<JsonBody<PodBillingList>> {
    return sendJsonBody(reply, await this.billing.pods(query, query.podId, actor));
  }

  @Get('clusters')
  @BillingRangeQuery()
  @TextQuery('clusterId', 'only this cluster')
  @Operation('Cluster usage per cluster and bucket', {
    returns: 'ClusterBillingList',
    serialized: true,
    errors: RANGE_ERROR,
  })
  async clusters(
    @Query() query: BillingQueryParams & { clusterId?: string },
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<JsonBody<ClusterBillingList>> {
    return sendJsonBody(reply, await this.billing.clusters(query, query.clusterId, actor));
  }

  @Get('serverless')
  @BillingRangeQuery()
  @TextQuery('endpointId', 'only this endpoint')
  @Operation("Serverless usage per endpoint and bucket (its workers' seconds)", {
    returns: 'ServerlessBillingList',
    serialized: true,
    errors: RANGE_ERROR,
  })
  async serverless(
    @Query() query: BillingQueryParams & { endpointId?: string },
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<JsonBody<ServerlessBillingList>> {
    return sendJsonBody(reply, await this.billing.serverless(query, query.endpointId, actor));
  }

  @Get('endpoints')
  @BillingRangeQuery()
  @TextQuery('endpointId', 'only this endpoint')
  @Operation('Endpoint usage per endpoint and bucket (the serverless list)', {
    returns: 'ServerlessBillingList',
    serialized: true,
    errors: RANGE_ERROR,
  })
  async endpoints(
    @Query() query: BillingQueryParams & { endpointId?: string },
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<JsonBody<ServerlessBillingList>> {
    return sendJsonBody(reply, await this.billing.serverless(query, query.endpointId, actor));
  }

  @Get('network-volumes')
  @BillingRangeQuery()
  @TextQuery('networkVolumeId', 'only this volume')
  @Operation('Network volume usage per volume and bucket (GB-hours)', {
    returns: 'NetworkVolumeBillingList',
    errors: RANGE_ERROR,
  })
  networkVolumes(
    @Query() query: BillingQueryParams & { networkVolumeId?: string },
    @CurrentActor() actor: Actor,
  ): Promise<NetworkVolumeBillingList> {
    return this.billing.networkVolumes(query, query.networkVolumeId, actor);
  }

  @Get('export')
  @BillingRangeQuery()
  @TextQuery('format', '`csv` (default; text/csv with a header row) or `jsonl` (application/x-ndjson)', [
    'csv',
    'jsonl',
  ])
  @Operation('Export every usage record of the range, for chargeback', {
    returns: 'UsageExport',
    description:
      "The caller's records of every family (pod, cluster, serverless, network-volume), one row per resource " +
      'and bucket, as CSV or JSON lines. Any key of the user that may read (scope `full` or `read`) may export.',
    errors: RANGE_ERROR,
  })
  async export(
    @Query() query: BillingQueryParams & { format?: string },
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<UsageExport> {
    const format = query.format ?? 'csv';
    if (format !== 'csv' && format !== 'jsonl') {
      throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [
        'format must be one of csv, jsonl',
      ]);
    }
    const rows = await this.billing.exportRows(billingRange(query, new Date()), actor);
    void reply.header('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson');
    return formatExport(rows, format);
  }
}
