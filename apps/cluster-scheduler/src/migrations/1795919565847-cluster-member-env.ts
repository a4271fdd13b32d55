import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The variables every member of a cluster has alike are stored once, on the cluster (`member_env`); each member row
 * keeps only its own. Clusters created before keep NULL here and their members' whole environments.
 */
export class ClusterMemberEnv1795919565847 implements MigrationInterface {
  name = 'ClusterMemberEnv1795919565847';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."clusters" ADD "member_env" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."clusters" DROP COLUMN "member_env"`);
  }
}
