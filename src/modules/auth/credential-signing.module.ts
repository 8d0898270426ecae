import { Module } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { CredentialSigner } from './credential-signer';

/**
 * The key every instance signs credentials with: the configured one, else the one in the database
 * (migration SigningKeys), stored by whichever instance starts first.
 */
async function storedKey(dataSource: DataSource): Promise<Buffer> {
  await dataSource.query(
    `INSERT INTO signing_keys (name, secret) VALUES ('credentials', $1) ON CONFLICT (name) DO NOTHING`,
    [randomBytes(32)],
  );
  const rows: { secret: Buffer }[] = await dataSource.query(
    `SELECT secret FROM signing_keys WHERE name = 'credentials'`,
  );
  return Buffer.from(rows[0].secret);
}

@Module({
  providers: [
    {
      provide: CredentialSigner,
      inject: [AppConfig, DataSource],
      useFactory: async (config: AppConfig, dataSource: DataSource) =>
        new CredentialSigner(config.credentialSigningKey ?? (await storedKey(dataSource))),
    },
  ],
  exports: [CredentialSigner],
})
export class CredentialSigningModule {}
