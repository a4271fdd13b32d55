import { ArrayMaxSize, IsArray, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { CreateClusterDto, UpdateClusterDto } from './cluster.dto.js';

/**
 * `cluster.cmd.create`: the REST body as validated by the gateway, plus the caller's SSH public keys, which the
 * gateway (owner of accounts) resolves when `startSsh` is true, so the scheduler never reads the gateway's tables.
 */
export class CreateClusterCommand extends CreateClusterDto {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  @MaxLength(16 * 1024, { each: true })
  sshPublicKeys?: string[];
}

/** `cluster.cmd.delete`: frees the VXLAN id and CIDR at once; GPUs come back as the member pods terminate. */
export class DeleteClusterCommand {
  @IsString()
  @IsNotEmpty()
  id: string;
}

/** `cluster.cmd.rename` (`PATCH /v2/clusters/{id}`): the cluster's new name; nothing else of it changes. */
export class RenameClusterCommand extends UpdateClusterDto {
  @IsString()
  @IsNotEmpty()
  id: string;
}

/**
 * What `cluster.cmd.rename` answers: the renamed cluster's id and name, what the command decides. Not the whole
 * ClusterView, whose member counts follow the pods' status events, which a rebuild applies at other moments
 * than the live system did (the gateway reads the view after the rename).
 */
export interface ClusterRenamed {
  id: string;
  name: string;
}

export class GetClusterQuery {
  @IsString()
  @IsNotEmpty()
  id: string;
}

/** The caller's live clusters, newest first. */
export class ListClustersQuery {}

/** The member pods of one of the caller's clusters, in rank order, as the scheduler knows them. */
export class ListClusterMembersQuery {
  @IsString()
  @IsNotEmpty()
  id: string;
}
