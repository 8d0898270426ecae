import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ClientSecretsModule } from '../client-secrets/client-secrets.module';
import { ModelsModule } from '../models/models.module';
import { SessionsModule } from '../sessions/sessions.module';
import { UsageModule } from '../usage/usage.module';
import { CompatAdmission } from './compat/compat-admission.service';
import { CompatSessionsRepository } from './compat/compat-sessions.repository';
import { FluxGateway } from './flux/flux.gateway';
import { ListenGateway } from './listen.gateway';
import { LiveGateway } from './live.gateway';
import { RealtimeGateway } from './realtime.gateway';
import { HeldSessionsRepository } from './sockets/held-sessions.repository';
import { InstanceIdentity } from './sockets/instance-identity';
import { SessionPortsFactory } from './sockets/session-ports.factory';
import { SocketAdmission } from './sockets/socket-admission.service';
import { SocketSessions } from './sockets/socket-sessions.service';
import { sessionEndSignalsProvider } from './sockets/signals/session-end-signals.provider';

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
