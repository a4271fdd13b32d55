import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Teams1796507921145 implements MigrationInterface {
  name = 'Teams1796507921145';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "gateway"."team_members" ("team_id" text NOT NULL, "user_id" text NOT NULL, "role" text NOT NULL, "added_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_1d3c06a8217a8785e2af0ec4ab8" PRIMARY KEY ("team_id", "user_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "team_members_user_idx" ON "gateway"."team_members"  ("user_id") `);
    await queryRunner.query(
      `CREATE TABLE "gateway"."teams" ("id" text NOT NULL, "name" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "UQ_48c0c32e6247a2de155baeaf980" UNIQUE ("name"), CONSTRAINT "PK_7e5523774a38b08a6236d322403" PRIMARY KEY ("id"))`,
    );
    // Every key made before teams acts for its holder's own account.
    await queryRunner.query(`ALTER TABLE "gateway"."api_keys" ADD "account_id" text`);
    await queryRunner.query(`UPDATE "gateway"."api_keys" SET "account_id" = "user_id"`);
    await queryRunner.query(`ALTER TABLE "gateway"."api_keys" ALTER COLUMN "account_id" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "gateway"."users" ADD "disabled_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "gateway"."users" ADD "sso_subject" text`);
    await queryRunner.query(`CREATE INDEX "api_keys_account_idx" ON "gateway"."api_keys"  ("account_id") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "users_sso_subject_uq" ON "gateway"."users"  ("sso_subject") WHERE sso_subject IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "gateway"."users_sso_subject_uq"`);
    await queryRunner.query(`DROP INDEX "gateway"."api_keys_account_idx"`);
    await queryRunner.query(`ALTER TABLE "gateway"."users" DROP COLUMN "sso_subject"`);
    await queryRunner.query(`ALTER TABLE "gateway"."users" DROP COLUMN "disabled_at"`);
    await queryRunner.query(`ALTER TABLE "gateway"."api_keys" DROP COLUMN "account_id"`);
    await queryRunner.query(`DROP TABLE "gateway"."teams"`);
    await queryRunner.query(`DROP INDEX "gateway"."team_members_user_idx"`);
    await queryRunner.query(`DROP TABLE "gateway"."team_members"`);
  }
}
