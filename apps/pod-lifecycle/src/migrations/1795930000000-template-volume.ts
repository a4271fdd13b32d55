import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Templates carry a pod volume as RunPod's do (`volumeInGb`, with the `volumeMountPath` they had): the host-local
 * persistent storage a pod made from the template gets unless its request says otherwise. 0 (every template so
 * far) is none.
 */
export class TemplateVolume1795930000000 implements MigrationInterface {
  name = 'TemplateVolume1795930000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "pod_lifecycle"."templates" ADD "volume_gb" integer NOT NULL DEFAULT 0`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pod_lifecycle"."templates" DROP COLUMN "volume_gb"`);
  }
}
