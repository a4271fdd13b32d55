import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, Subjects, type Actor } from '@app/contracts';
import { QueryBus } from '@app/messaging';

function invalid(error: string): DomainError {
  return new DomainError(ErrorCode.ValidationFailed, 'the endpoint failed validation', [error]);
}

/**
 * An owner that does not answer refuses this save for good (503 DEPENDENCY_UNAVAILABLE, recorded as the command's
 * answer), unlike OWNER_UNAVAILABLE, which tells a caller the command may still be applied: so the gateway revokes
 * the workers' key it minted for an endpoint that will never exist.
 */
function unanswered(error: unknown): never {
  if (error instanceof DomainError && error.code === ErrorCode.OwnerUnavailable) {
    throw new DomainError(
      ErrorCode.DependencyUnavailable,
      `the endpoint cannot be checked now: ${error.message}`,
    );
  }
  throw error;
}

/**
 * What an endpoint names in other apps, checked by the save command itself so that every surface (REST v1, v2,
 * GraphQL) and a replay get the same rules: the template (pod-lifecycle's) and the network volume (the
 * scheduler's), each asked as the command's actor, so another user's answers 403 and an unknown one 404.
 */
@Injectable()
export class EndpointReferences {
  constructor(private readonly queries: QueryBus) {}

  /** The actor's template, or a public one of the catalog, and serverless (422 otherwise). */
  async checkTemplate(templateId: string, actor: Actor): Promise<void> {
    const template = await this.queries
      .query(Subjects.template.get, { id: templateId }, actor)
      .catch(unanswered);
    if (!template.isServerless) {
      throw invalid(
        `templateId: template ${templateId} is not a serverless template (create one with isServerless: true)`,
      );
    }
  }

  /** The actor's volume, in a data center of one of the endpoint's regions when it names any (422 otherwise). */
  async checkNetworkVolume(id: string, locations: readonly string[], actor: Actor): Promise<void> {
    const volume = await this.queries.query(Subjects.volume.get, { id }, actor).catch(unanswered);
    if (!locations.length) return;
    const dataCenters = await this.queries.query(Subjects.catalog.dataCenters, {}, actor).catch(unanswered);
    const region = dataCenters.find((dc) => dc.id === volume.dataCenterId)?.region;
    if (!region || !locations.includes(region)) {
      throw invalid(
        `networkVolumeId: network volume ${id} is in data center ${volume.dataCenterId}` +
          `${region ? ` (region ${region})` : ''}, outside the endpoint's locations ${locations.join(',')}`,
      );
    }
  }
}
