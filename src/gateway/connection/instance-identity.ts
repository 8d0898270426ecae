import { Injectable } from '@nestjs/common';
import { hostname } from 'node:os';
import { randomBase62 } from '../../platform/ids';

/** Names this process on the session rows it holds (DELETE routing, orphan reaping). */
@Injectable()
export class InstanceIdentity {
  readonly id = `${hostname().slice(0, 40)}-${randomBase62(8)}`;
}
