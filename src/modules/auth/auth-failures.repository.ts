import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface FailureVerdict {
  allowed: boolean;
  /** Failures the address may still make now (fractional while refilling). */
  tokens: number;
}

/** The per-address bucket of failed authentications (migration AuthFailures). */
@Injectable()
export class AuthFailuresRepository {
  constructor(private readonly dataSource: DataSource) {}

  async record(address: string, capacity: number, refillPerSecond: number): Promise<FailureVerdict> {
    const rows: { o_allowed: boolean; o_tokens: number }[] = await this.dataSource.query(
      'SELECT * FROM continuum_record_auth_failure($1, $2, $3)',
      [address, capacity, refillPerSecond],
    );
    return { allowed: rows[0].o_allowed, tokens: rows[0].o_tokens };
  }
}
