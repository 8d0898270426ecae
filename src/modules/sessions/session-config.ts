/**
 * Turns a requested session configuration (the `session` object of a client-secret request, or of a
 * socket's session.start opened with an API key) into the configuration the session runs with.
 * Pure: the model catalog is passed in, errors are AppErrors naming the offending parameter.
 */
import { AppError } from '../../platform/errors/app-error';
import {
  DEFAULT_END_OF_TURN as CORE_END_OF_TURN,
  DEFAULT_LANGUAGE,
  DEFAULT_VAD,
  VOICE,
  SAMPLE_RATE,
} from '../../session-core';
import type { SessionAudioConfig, SessionType } from './entities/session.entity';
import { realtimeFormatName, REALTIME_FORMATS_SERVED } from '../../platform/audio/audio-format';

export const SUPPORTED_FORMAT = 'audio/pcm';
export const SUPPORTED_VOICE = VOICE;
export { DEFAULT_LANGUAGE };
/** The session core's defaults, in the wire's names. */
export const DEFAULT_TURN_DETECTION = {
  type: DEFAULT_VAD.type,
  threshold: DEFAULT_VAD.threshold,
  prefix_padding_ms: DEFAULT_VAD.prefixPaddingMs,
  silence_duration_ms: DEFAULT_VAD.silenceDurationMs,
};
export const DEFAULT_END_OF_TURN = {
  eot_threshold: CORE_END_OF_TURN.eotThreshold,
  eager_eot_threshold: CORE_END_OF_TURN.eagerEotThreshold,
  eot_timeout_ms: CORE_END_OF_TURN.eotTimeoutMs,
};

export interface RequestedEndOfTurn {
  eot_threshold?: number;
  eager_eot_threshold?: number | null;
  eot_timeout_ms?: number;
}

export interface RequestedTurnDetection {
  type?: string;
  threshold?: number;
  prefix_padding_ms?: number;
  silence_duration_ms?: number;
  end_of_turn?: RequestedEndOfTurn | null;
  create_response?: boolean;
  interrupt_response?: boolean;
  idle_timeout_ms?: number | null;
}

/** The shape of a requested session; the request DTOs satisfy it, and so can a socket's own parsing. */
export interface RequestedSessionConfig {
  type?: SessionType;
  model?: string;
  include?: string[];
  audio?: {
    input?: {
      format?: { type?: string; rate?: number | null };
      noise_reduction?: { type?: string; strength?: number } | null;
      transcription?: { language?: string; model?: string; prompt?: string };
      turn_detection?: RequestedTurnDetection | null;
    };
    output?: { voice?: string; encoding?: 'base64' | 'binary'; format?: { type?: string; rate?: number | null } };
  };
}

export interface ResolvedSessionConfig {
  type: SessionType;
  model: string;
  audio: SessionAudioConfig;
}

export interface ModelLookup {
  find(id: string): { id: string; type: SessionType } | undefined;
  defaultFor(type: SessionType): { id: string; type: SessionType };
}

export interface ResolveOptions {
  /** POST /v1/realtime/client_secrets: always a transcription session on the streaming model. */
  transcriptionOnly?: boolean;
  /** OpenAI's formats (G.711 too), for the Realtime socket; the live protocol serves pcm16 only. */
  realtimeFormats?: boolean;
}

const invalid = (param: string, message: string) => new AppError('invalid_parameter', message, { param });

export function resolveSessionConfig(
  requested: RequestedSessionConfig | undefined,
  models: ModelLookup,
  options: ResolveOptions = {},
): ResolvedSessionConfig {
  const { type, model } = resolveModel(requested, models, options);
  const input = requested?.audio?.input;
  const transcription = input?.transcription;
  if (transcription?.model !== undefined && transcription.model !== model) {
    throw invalid(
      'session.audio.input.transcription.model',
      `transcription.model must be the session's model ${JSON.stringify(model)}, not ${JSON.stringify(transcription.model)}`,
    );
  }
  return {
    type,
    model,
    audio: {
      input: {
        format: resolveFormat(input?.format, 'session.audio.input.format', options.realtimeFormats === true),
        transcription: {
          language: transcription?.language ?? DEFAULT_LANGUAGE,
          ...(type === 'transcription' ? { model } : {}),
          ...(transcription?.prompt !== undefined ? { prompt: transcription.prompt } : {}),
        },
        turn_detection: resolveTurnDetection(input?.turn_detection, type),
        // Accepted for compatibility; the engine does no noise reduction, and the response says so.
        noise_reduction: null,
      },
      output: resolveOutput(type, requested?.audio?.output, options.realtimeFormats === true),
    },
  };
}

function resolveModel(
  requested: RequestedSessionConfig | undefined,
  models: ModelLookup,
  { transcriptionOnly }: ResolveOptions,
): { type: SessionType; model: string } {
  if (transcriptionOnly) {
    const only = models.defaultFor('transcription');
    if (requested?.type !== undefined && requested.type !== 'transcription') {
      throw invalid('session.type', 'This endpoint creates transcription sessions only');
    }
    if (requested?.model !== undefined && requested.model !== only.id) {
      throw invalid('session.model', `This endpoint serves only the model ${JSON.stringify(only.id)}`);
    }
    return { type: 'transcription', model: only.id };
  }
  if (requested?.model === undefined) {
    const type = requested?.type ?? 'live';
    return { type, model: models.defaultFor(type).id };
  }
  const found = models.find(requested.model);
  if (!found) throw invalid('session.model', `Unknown model ${JSON.stringify(requested.model)}`);
  if (requested.type !== undefined && requested.type !== found.type) {
    throw invalid('session.model', `The model ${found.id} serves ${found.type} sessions, not ${requested.type}`);
  }
  return { type: found.type, model: found.id };
}

function resolveFormat(
  format: { type?: string; rate?: number | null } | undefined,
  param: string,
  realtimeFormats: boolean,
): { type: string; rate: number } {
  if (realtimeFormats && format !== undefined) {
    const name = realtimeFormatName({ type: format.type ?? SUPPORTED_FORMAT, rate: format.rate });
    if (name === null) {
      const typeServed = realtimeFormatName({ type: format.type ?? SUPPORTED_FORMAT }) !== null;
      throw invalid(`${param}.${typeServed ? 'rate' : 'type'}`, `${param}: ${REALTIME_FORMATS_SERVED} is served`);
    }
    return name === 'pcm16' ? { type: SUPPORTED_FORMAT, rate: SAMPLE_RATE } : { type: `audio/${name}`, rate: 8000 };
  }
  if (format?.type !== undefined && format.type !== SUPPORTED_FORMAT) {
    throw invalid(`${param}.type`, `Only ${SUPPORTED_FORMAT} at ${SAMPLE_RATE} Hz is supported`);
  }
  if (format?.rate !== undefined && format.rate !== null && format.rate !== SAMPLE_RATE) {
    throw invalid(`${param}.rate`, `Only a rate of ${SAMPLE_RATE} is supported`);
  }
  return { type: SUPPORTED_FORMAT, rate: SAMPLE_RATE };
}

function resolveTurnDetection(
  requested: RequestedTurnDetection | null | undefined,
  type: SessionType,
): Record<string, unknown> | null {
  if (requested === null) return null; // manual turns: utterances end on commit
  if (requested?.end_of_turn !== undefined && type !== 'live') {
    throw invalid('session.audio.input.turn_detection.end_of_turn', 'end_of_turn is for live sessions only');
  }
  if (requested?.type !== undefined && requested.type !== 'server_vad') {
    throw invalid('session.audio.input.turn_detection.type', 'Only server_vad turn detection is supported');
  }
  return {
    type: 'server_vad',
    threshold: requested?.threshold ?? DEFAULT_TURN_DETECTION.threshold,
    prefix_padding_ms: requested?.prefix_padding_ms ?? DEFAULT_TURN_DETECTION.prefix_padding_ms,
    silence_duration_ms: requested?.silence_duration_ms ?? DEFAULT_TURN_DETECTION.silence_duration_ms,
    ...(type === 'live' ? { end_of_turn: resolveEndOfTurn(requested?.end_of_turn) } : {}),
  };
}

/** Live sessions only: transcription sessions keep OpenAI's fixed-silence server_vad. */
function resolveEndOfTurn(requested: RequestedEndOfTurn | null | undefined): Record<string, unknown> | null {
  if (requested === null) return null;
  const eot = requested?.eot_threshold ?? DEFAULT_END_OF_TURN.eot_threshold;
  const eager =
    requested?.eager_eot_threshold === undefined
      ? DEFAULT_END_OF_TURN.eager_eot_threshold
      : requested.eager_eot_threshold;
  if (eager !== null && eager > eot) {
    throw invalid(
      'session.audio.input.turn_detection.end_of_turn.eager_eot_threshold',
      'eager_eot_threshold must not be greater than eot_threshold',
    );
  }
  return {
    eot_threshold: eot,
    eager_eot_threshold: eager,
    eot_timeout_ms: requested?.eot_timeout_ms ?? DEFAULT_END_OF_TURN.eot_timeout_ms,
  };
}

function resolveOutput(
  type: SessionType,
  requested: NonNullable<RequestedSessionConfig['audio']>['output'],
  realtimeFormats: boolean,
): SessionAudioConfig['output'] {
  if (type === 'transcription') {
    if (requested !== undefined)
      throw invalid('session.audio.output', 'Transcription sessions produce no audio output');
    return null;
  }
  if (requested?.voice !== undefined && requested.voice !== SUPPORTED_VOICE) {
    throw invalid(
      'session.audio.output.voice',
      `Unknown voice ${JSON.stringify(requested.voice)}; the only voice is ${SUPPORTED_VOICE}`,
    );
  }
  const output = { voice: SUPPORTED_VOICE, encoding: requested?.encoding ?? 'base64' } as const;
  if (requested?.format === undefined) return output;
  if (!realtimeFormats) throw invalid('session.audio.output.format', 'The live protocol plays pcm16 at 24 kHz only');
  return { ...output, format: resolveFormat(requested.format, 'session.audio.output.format', true) };
}
