import type { MigrationInterface, QueryRunner } from 'typeorm';

export class DeletedClusters1795484944203 implements MigrationInterface {
  name = 'DeletedClusters1795484944203';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "pod_lifecycle"."deleted_clusters" ("cluster_id" text NOT NULL, "deleted_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_ed67616b12b834547bb9718ebae" PRIMARY KEY ("cluster_id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "pod_lifecycle"."deleted_clusters"`);
  }
}
