import { FactoryProvider, Module } from '@nestjs/common';
import { ASYNCAPI_DOCUMENT, buildAsyncApiDocument } from '../platform/openapi/asyncapi-document';
import { ClockModule } from '../platform/clock/clock.module';
import { AuthModule } from '../modules/auth';
import { ClientSecretsModule } from '../modules/client-secrets';
import { HealthModule } from '../modules/health';
import { ModelsModule } from '../modules/models';
import { SessionsModule } from '../modules/sessions';
import { UsageModule } from '../modules/usage';
import { InstanceIdentity } from './connection/instance-identity';
import { RunningCalls } from './connection/running-calls';
import { SessionPortsFactory } from './connection/session-ports.factory';
import { SocketSessions } from './connection/socket-sessions.service';
import { ASYNCAPI_INPUTS, DIALECTS } from './dialects';
import { SocketAdmission } from './handshake/socket-admission';
import { CallOwnerDialer } from './sideband/call-owner-dialer';
import { SidebandRelays } from './sideband/sideband-relays';
import { socketGateway, SocketWiring } from './socket-gateway';
import { CallSessions } from './telephony/call-sessions';
import { TwilioGateway } from './telephony/twilio/twilio.gateway';
import { WebRtcCallsController } from './webrtc/webrtc-calls.controller';
import { WebRtcCalls } from './webrtc/webrtc-calls.service';

/**
 * The WebSocket dialects and what they share: admission, ports to the database, held sessions; and
 * WebRTC calls, admitted and held alike.
 */
@Module({
  imports: [AuthModule, ClientSecretsModule, ClockModule, HealthModule, ModelsModule, SessionsModule, UsageModule],
  controllers: [WebRtcCallsController],
  providers: [
    WebRtcCalls,
    InstanceIdentity,
    RunningCalls,
    CallOwnerDialer,
    SidebandRelays,
    SocketAdmission,
    SessionPortsFactory,
    SocketSessions,
    SocketWiring,
    ...DIALECTS.map((dialect) => socketGateway(dialect)),
    CallSessions,
    TwilioGateway,
  ],
})
export class SocketGatewayModule {}

/** The AsyncAPI document of these sockets, built from the dialects; the app provides it to the docs module. */
export const asyncApiDocumentProvider: FactoryProvider<object> = {
  provide: ASYNCAPI_DOCUMENT,
  useFactory: () => buildAsyncApiDocument(ASYNCAPI_INPUTS),
};
