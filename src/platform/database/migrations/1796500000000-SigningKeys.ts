import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * signing_keys keeps the key that signs API keys and client secrets when CREDENTIAL_SIGNING_KEY is not
 * configured: the first instance to start stores a random one, every instance reads the same. It only
 * lets a throttled address's forged credential be refused without a statement; the credentials
 * themselves stay stored as their SHA-256 and are checked against those.
 */
export class SigningKeys1796500000000 implements MigrationInterface {
    name = 'SigningKeys1796500000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
CREATE TABLE signing_keys (
  name varchar(32) PRIMARY KEY,
  secret bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
)`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP TABLE signing_keys`);
    }
}
