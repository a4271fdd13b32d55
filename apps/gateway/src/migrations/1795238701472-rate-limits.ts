import type { MigrationInterface, QueryRunner } from 'typeorm';

export class RateLimits1795238701472 implements MigrationInterface {
  name = 'RateLimits1795238701472';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "gateway"."rate_limit_counters" ("user_id" text NOT NULL, "policy" text NOT NULL, "scope_key" text NOT NULL, "minute_start" bigint NOT NULL, "minute_count" integer NOT NULL, "hour_start" bigint NOT NULL, "hour_count" integer NOT NULL, "day_start" bigint NOT NULL, "day_count" integer NOT NULL, "minute_quota" integer NOT NULL, "hour_quota" integer NOT NULL, "day_quota" integer NOT NULL, "last_admitted" boolean NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_bd3619ba93559c7ca16da7532d6" PRIMARY KEY ("user_id", "policy", "scope_key"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "gateway"."rate_limit_overrides" ("user_id" text NOT NULL, "policy" text NOT NULL, "minute_quota" integer, "hour_quota" integer, "day_quota" integer, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_44fb465eaa31704c2d57214e521" PRIMARY KEY ("user_id", "policy"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "gateway"."rate_limit_overrides"`);
    await queryRunner.query(`DROP TABLE "gateway"."rate_limit_counters"`);
  }
}
