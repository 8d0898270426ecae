/** The module's entry for the rest of the service: other modules, the gateway and the app import only this. */
export { AudioResponseDto, toSessionAudioResponse } from './dto/session-audio.dto';
export { SessionTokensDto } from './dto/session.dto';
export {
  CLOSE_REASONS,
  SESSION_STATUSES,
  SESSION_TRANSPORTS,
  type SessionAudioConfig,
  type SessionTransport,
  type SessionType,
} from './entities/session.entity';
export { type OpenedSession } from './opened-session';
export { SessionAdmissionService } from './session-admission.service';
export {
  type RequestedSessionConfig,
  type RequestedTurnDetection,
  type ResolvedSessionConfig,
  resolveSessionConfig,
} from './session-config';
export { SessionEnds } from './session-ends';
export { type EngineSettings } from './sessions.repository';
export { SessionsModule } from './sessions.module';
export { SessionsService, type RunningCallOwner } from './sessions.service';
export { isCallId, isSessionId, newCallId, newSessionId } from './session-id';
