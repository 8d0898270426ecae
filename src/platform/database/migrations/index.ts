import { Initial1795239154665 } from './1795239154665-Initial';
import { SessionAdmission1795241750846 } from './1795241750846-SessionAdmission';
import { RequestTokens1795249085621 } from './1795249085621-RequestTokens';
import { AdmissionBatches1795254328521 } from './1795254328521-AdmissionBatches';
import { AuthFailures1796000000000 } from './1796000000000-AuthFailures';
import { MeterBatches1796000000001 } from './1796000000001-MeterBatches';
import { OperatorControls1796100000000 } from './1796100000000-OperatorControls';
import { SessionTokens1796200000000 } from './1796200000000-SessionTokens';
import { SecretRealtimeSession1796300000000 } from './1796300000000-SecretRealtimeSession';
import { SessionTransport1796400000000 } from './1796400000000-SessionTransport';
import { SigningKeys1796500000000 } from './1796500000000-SigningKeys';
import { TextMetering1796500000001 } from './1796500000001-TextMetering';
import { CallOwnerUrl1796600000317 } from './1796600000317-CallOwnerUrl';

/** Applied in order; an applied migration is never edited, only followed by a new one. */
export const MIGRATIONS = [
  Initial1795239154665,
  SessionAdmission1795241750846,
  RequestTokens1795249085621,
  AdmissionBatches1795254328521,
  AuthFailures1796000000000,
  MeterBatches1796000000001,
  OperatorControls1796100000000,
  SessionTokens1796200000000,
  SecretRealtimeSession1796300000000,
  SessionTransport1796400000000,
  SigningKeys1796500000000,
  TextMetering1796500000001,
  CallOwnerUrl1796600000317,
];
