import { Module } from '@nestjs/common';
import { AuthModule } from '../modules/auth';
import { ClientSecretsModule } from '../modules/client-secrets';
import { ModelsModule } from '../modules/models';
import { SessionsModule } from '../modules/sessions';
import { UsageModule } from '../modules/usage';
import { CompatAdmission } from './handshake/compat-admission.service';
import { CompatSessionsRepository } from './connection/compat-sessions.repository';
import { FluxGateway } from './dialects/deepgram/flux/flux.gateway';
import { ListenGateway } from './dialects/deepgram/listen/listen.gateway';
import { LiveGateway } from './dialects/live/live.gateway';
import { RealtimeGateway } from './dialects/realtime/realtime.gateway';
import { HeldSessionsRepository } from './connection/held-sessions.repository';
import { InstanceIdentity } from './connection/instance-identity';
import { SessionPortsFactory } from './connection/session-ports.factory';
import { SocketAdmission } from './handshake/socket-admission.service';
import { SocketSessions } from './connection/socket-sessions.service';
import { sessionEndSignalsProvider } from './connection/signals/session-end-signals.provider';

/** The WebSocket dialects and what they share: admission, ports to the database, held sessions. */
@Module({
  imports: [AuthModule, ClientSecretsModule, ModelsModule, SessionsModule, UsageModule],
  providers: [
    InstanceIdentity,
    SocketAdmission,
    SessionPortsFactory,
    HeldSessionsRepository,
    sessionEndSignalsProvider,
    SocketSessions,
    LiveGateway,
    CompatSessionsRepository,
    CompatAdmission,
    RealtimeGateway,
    ListenGateway,
    FluxGateway,
  ],
})
export class LiveGatewayModule {}
