import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CatalogPrices1795482602596 implements MigrationInterface {
  name = 'CatalogPrices1795482602596';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "cluster_scheduler"."storage_prices" ("kind" text NOT NULL, "per_gb_hr" numeric(14,8) NOT NULL, CONSTRAINT "PK_c9196fb8201e520974c80418db3" PRIMARY KEY ("kind"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."cpu_types" ADD "price_per_hr" numeric(12,6) NOT NULL DEFAULT '0'`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."gpu_types" ADD "price_per_hr" numeric(12,6) NOT NULL DEFAULT '0'`,
    );
    // Forget which fleet files were loaded, so the next boot loads the file again and fills in the prices.
    await queryRunner.query(`DELETE FROM "cluster_scheduler"."fleet_loads"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."gpu_types" DROP COLUMN "price_per_hr"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."cpu_types" DROP COLUMN "price_per_hr"`);
    await queryRunner.query(`DROP TABLE "cluster_scheduler"."storage_prices"`);
  }
}
