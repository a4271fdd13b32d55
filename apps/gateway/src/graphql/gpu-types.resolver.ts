import { Args, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import type { Actor } from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { CatalogService } from '../catalog/catalog.service.js';
import { stockStatus } from './gpu-stock.js';
import { GpuLowestPriceInput, GpuTypeFilterInput } from './inputs/pod.input.js';
import { GpuTypeModel, LowestPriceModel } from './models/pod.model.js';

/**
 * `gpuTypes(input:)` as the Python SDK's get_gpus/get_gpu and the MCP server's get-capacity ask it: the catalog's
 * GPU types with their live capacity, both from cluster-scheduler (the same query as GET /v2/catalog/gpus).
 */
@Auth({ key: 'query-or-bearer' })
@Resource('catalog')
@Resolver(() => GpuTypeModel)
export class GpuTypesResolver {
  constructor(private readonly catalog: CatalogService) {}

  @Query(() => [GpuTypeModel], { description: 'GPU types of the catalog, one by id or all' })
  async gpuTypes(
    @Args('input', { type: () => GpuTypeFilterInput, nullable: true }) input: GpuTypeFilterInput | null,
    @CurrentActor() actor: Actor,
  ): Promise<GpuTypeModel[]> {
    const types = await this.catalog.gpuTypes(actor);
    return types
      .filter((t) => !input?.id || t.id === input.id)
      .map((t) => ({
        id: t.id,
        displayName: t.displayName,
        manufacturer: t.manufacturer,
        memoryInGb: t.memoryInGb,
        cudaCores: null,
        maxGpuCount: t.maxCount,
        // Every host of a self-hosted fleet is the operator's own: "secure cloud", at the one on-demand price.
        secureCloud: true,
        communityCloud: false,
        securePrice: t.pricePerHr,
        communityPrice: null,
        secureSpotPrice: null,
        communitySpotPrice: null,
        oneWeekPrice: null,
        oneMonthPrice: null,
        threeMonthPrice: null,
        availability: t.availability,
      }));
  }

  /**
   * The catalog price × `gpuCount` (1 when absent) per hour, and the stock for pods of that size. There is one
   * price per type (on demand, no spot market), so `minimumBidPrice` stays null. `secureCloud` and
   * `allowedCudaVersions` narrow nothing: every host is "secure", and placement here does not look at CUDA
   * versions (the fleet does not record them), so the stock is the same for any version.
   */
  @ResolveField('lowestPrice', () => LowestPriceModel)
  lowestPrice(
    @Parent() gpuType: GpuTypeModel,
    @Args('input', { type: () => GpuLowestPriceInput, nullable: true }) input: GpuLowestPriceInput | null,
  ): LowestPriceModel {
    const count = input?.gpuCount ?? 1;
    return {
      minimumBidPrice: null,
      uninterruptablePrice: Math.round(gpuType.securePrice * count * 1e6) / 1e6,
      stockStatus: stockStatus(gpuType.availability, count),
      gpuTypeCudaVersions: [],
    };
  }
}
