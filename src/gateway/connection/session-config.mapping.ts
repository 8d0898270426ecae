import {
  DEFAULT_END_OF_TURN,
  DEFAULT_VAD,
  type SessionConfig,
  type EndOfTurnSettings,
  type TurnDetectionConfig,
} from '../../session-core';
import type { SessionAudioConfig, SessionType } from '../../modules/sessions';
import { realtimeFormatName, type AudioFormats } from '../../platform/audio/audio-format';
import type { RequestedSessionConfig } from '../../modules/sessions';

/** The stored, resolved audio configuration of a session → what its runtime and engine run with. */
export function coreConfigOf(type: SessionType, model: string, audio: SessionAudioConfig): SessionConfig {
  const td = audio.input.turn_detection;
  const turnDetection: TurnDetectionConfig | null = td
    ? {
        type: 'server_vad',
        threshold: Number(td.threshold ?? DEFAULT_VAD.threshold),
        silenceDurationMs: Number(td.silence_duration_ms ?? DEFAULT_VAD.silenceDurationMs),
        prefixPaddingMs: Number(td.prefix_padding_ms ?? DEFAULT_VAD.prefixPaddingMs),
        ...(isRecord(td.end_of_turn) ? { endOfTurn: endOfTurnOf(td.end_of_turn) } : {}),
      }
    : null;
  return {
    type,
    model,
    voice: audio.output?.voice ?? null,
    language: audio.input.transcription.language,
    turnDetection,
    outputEncoding: audio.output?.encoding ?? 'base64',
    // Stored for conversation sessions only (a realtime client secret's turn detection).
    ...(td?.interrupt_response === false ? { interruptResponse: false } : {}),
    ...(typeof td?.idle_timeout_ms === 'number' ? { idleTimeoutMs: td.idle_timeout_ms } : {}),
    ...(td?.create_response === false ? { createResponse: false } : {}),
    ...audioFormatsOf(audio),
  };
}

/** A Realtime secret's G.711 formats (stored as `audio/pcmu`…); nothing for pcm16 both ways. */
function audioFormatsOf(audio: SessionAudioConfig): { audioFormats?: AudioFormats } {
  const input = realtimeFormatName(audio.input.format) ?? 'pcm16';
  const output = audio.output?.format === undefined ? 'pcm16' : (realtimeFormatName(audio.output.format) ?? 'pcm16');
  return input === 'pcm16' && output === 'pcm16' ? {} : { audioFormats: { input, output } };
}

/** A socket's validated session.start → the request shape the admission path resolves and stores. */
export function requestedOf(config: SessionConfig): RequestedSessionConfig {
  const td = config.turnDetection;
  return {
    type: config.type,
    model: config.model,
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: 24_000 },
        transcription: { language: config.language },
        turn_detection: td
          ? {
              type: 'server_vad',
              threshold: td.threshold,
              silence_duration_ms: td.silenceDurationMs,
              prefix_padding_ms: td.prefixPaddingMs,
              ...(config.type === 'live' ? { end_of_turn: endOfTurnRequest(td.endOfTurn ?? null) } : {}),
            }
          : null,
      },
      ...(config.type === 'live' && config.voice
        ? { output: { voice: config.voice, encoding: config.outputEncoding } }
        : {}),
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function endOfTurnOf(stored: Record<string, unknown>): EndOfTurnSettings {
  return {
    eotThreshold: Number(stored.eot_threshold ?? DEFAULT_END_OF_TURN.eotThreshold),
    eagerEotThreshold:
      stored.eager_eot_threshold === null
        ? null
        : Number(stored.eager_eot_threshold ?? DEFAULT_END_OF_TURN.eagerEotThreshold),
    eotTimeoutMs: Number(stored.eot_timeout_ms ?? DEFAULT_END_OF_TURN.eotTimeoutMs),
  };
}

function endOfTurnRequest(settings: EndOfTurnSettings | null) {
  return settings === null
    ? null
    : {
        eot_threshold: settings.eotThreshold,
        eager_eot_threshold: settings.eagerEotThreshold,
        eot_timeout_ms: settings.eotTimeoutMs,
      };
}
