import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A pod's notice of its host's drain and when it is stopped (docs/adr/0039-live-fleet.md): `pod.cmd.host-notice`
 * sets and clears them. Every pod so far has none.
 */
export class PodHostNotice1796531919125 implements MigrationInterface {
  name = 'PodHostNotice1796531919125';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pod_lifecycle"."pods" ADD "host_notice" text`);
    await queryRunner.query(
      `ALTER TABLE "pod_lifecycle"."pods" ADD "stop_deadline" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(
      `ALTER TABLE "pod_lifecycle"."pods" ADD "host_notice_at" TIMESTAMP WITH TIME ZONE`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pod_lifecycle"."pods" DROP COLUMN "host_notice_at"`);
    await queryRunner.query(`ALTER TABLE "pod_lifecycle"."pods" DROP COLUMN "stop_deadline"`);
    await queryRunner.query(`ALTER TABLE "pod_lifecycle"."pods" DROP COLUMN "host_notice"`);
  }
}
