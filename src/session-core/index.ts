/** The session core's public surface: what the gateway and the dialects use. */
export { closeOutcome, type CloseCause, type CloseOutcome } from './model/close-causes';
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
} from './runtime/ports';
export { DEFAULT_RUNTIME_TUNING, type RuntimeTuning, type SessionRuntimeOptions } from './runtime/runtime-options';
export type { SessionCommand } from './model/session.commands';
export type { ServerEvent, WarningCode } from './model/session.events';
export type { SessionPhase } from './machine/session.machine';
export { sameEngineSettings } from './model/session-config-changes';
export { SessionRegistry } from './runtime/session.registry';
export { SessionRuntime } from './runtime/session.runtime';
export { IdleWatch } from './runtime/idle-watch';
export {
  PendingUsage,
  type PendingBatch,
  type PendingUsageSnapshot,
  type PendingUsageStats,
  type PendingWrite,
} from './runtime/pending-usage';
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
} from './model/session.types';
export { DEFAULT_END_OF_TURN, DEFAULT_LANGUAGE, DEFAULT_VAD, VOICE, VOICES } from './model/defaults';
export type { TranscriptDelta, TranscriptWord } from './model/transcript';
export { type SessionError, type SessionStats, assertUnreachable } from './model/session.types';
export {
  ConversationModel,
  DEFAULT_CONVERSATION_SETTINGS,
  IdleTimeout,
  idleTimedOut,
  MAX_CONVERSATION_ITEMS,
  type ContentPart,
  DEFAULT_CONVERSATION_LIMITS,
  estimateTokens,
  fitContext,
  type ConversationLimits,
  type FittedContext,
  type ConversationEffect,
  type ConversationEvent,
  type ConversationItem,
  type ConversationSettings,
  type OutputRef,
  type ResponseOptions,
  type ResponseView,
  type SilentSegment,
} from './conversation';
export {
  EngineCapacityError,
  FRAME_BYTES,
  FRAME_MS,
  FRAME_SAMPLES,
  SAMPLE_RATE,
  SPEECH_ENGINE,
  type ConversationCapabilities,
  type ConversationMessage,
  type ConversationTool,
  type EndOfTurnSettings,
  type EngineCapacity,
  type EngineEvent,
  type EngineEventSink,
  type EngineStream,
  type EngineStreamConfig,
  type EngineWord,
  type ResponseEvent,
  type ResponseRequest,
  type ResponseSink,
  type SpeechEngine,
  type TokenUsage,
  type ToolChoice,
  type TurnDetectionConfig,
} from './engine/engine.port';
