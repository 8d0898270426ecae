/** The session core's public surface: what the gateway and the dialects use. */
export { closeOutcome, type CloseCause, type CloseOutcome } from './close-causes';
export {
  systemClock,
  type ActivationResult,
  type ClockPort,
  type EventRenderer,
  type LoggerPort,
  type MeterPort,
  type RenderedFrames,
  type SessionActivation,
  type SessionClosing,
  type SessionStorePort,
  type TimerHandle,
  type TransportPort,
} from './ports';
export { DEFAULT_RUNTIME_TUNING, type RuntimeTuning, type SessionRuntimeOptions } from './runtime-options';
export type { SessionCommand } from './session.commands';
export type { ServerEvent, WarningCode } from './session.events';
export type { SessionPhase } from './session.machine';
export { sameEngineSettings } from './session-config-changes';
export { SessionRegistry } from './session.registry';
export { SessionRuntime } from './session.runtime';
export {
  DEFAULT_SESSION_LIMITS,
  framesToSeconds,
  type CloseReason,
  type MeterBatch,
  type OutputEncoding,
  type SessionConfig,
  type SessionConfigChanges,
  type SessionDescriptor,
  type SessionLimits,
  type SessionType,
  type Usage,
} from './session.types';
