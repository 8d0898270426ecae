/**
 * `session.update` of a conversation session (GA `type: "realtime"`) → what changes: the settings
 * responses are made with (the conversation model's), the engine's turn detection (a neutral
 * `update` for the session core), and what `session.updated` shows. Strict like OpenAI about unknown
 * fields and wrong types; what is not served here is refused with a message that says so, never
 * ignored. The Agents SDK's default configuration (pcm 24 kHz in and out, semantic_vad, an OpenAI
 * transcription model, tracing) is accepted as it is.
 */
import type { ConversationSettings, EndOfTurnSettings, TurnDetectionConfig } from '../../../../session-core';
import { DEFAULT_END_OF_TURN, DEFAULT_VAD, VOICE } from '../../../../session-core';
import { isRecord, type Fields } from '../../../connection/client-frames';
import { isServedModel } from '../realtime.session-update';
import {
  realtimeFormatName,
  REALTIME_FORMATS_SERVED,
  type AudioFormatName,
} from '../../../../platform/audio/audio-format';
import {
  integer,
  known,
  MAX_TEXT,
  maxOutputTokens,
  object,
  outputModalities,
  Refusal,
  string,
  toolChoice,
  tools,
} from './conversation.fields';

/** What `session.updated` shows beyond the conversation settings. */
export interface ConversationView {
  model: string;
  voice: string;
  transcriptionModel: string | null;
  /** OpenAI's turn_detection object as the client set it (null: manual commits). */
  turnDetection: Fields | null;
  tracing: unknown;
}

export interface ConversationUpdate {
  settings: Partial<ConversationSettings>;
  view: Partial<ConversationView>;
  /** Present when turn detection changes (the engine stream is reopened before the first audio). */
  turnDetection?: TurnDetectionConfig | null;
  /** With turnDetection: `interrupt_response` and `idle_timeout_ms` (null: off), which change at any time. */
  interruptResponse?: boolean;
  idleTimeoutMs?: number | null;
  /** The wire's formats the update names (the rest stay as they are). */
  audioFormats?: { input?: AudioFormatName; output?: AudioFormatName };
}

/** OpenAI's range for `idle_timeout_ms`. */
export const IDLE_TIMEOUT_MS = { min: 5000, max: 30_000 } as const;

const SESSION_FIELDS = new Set([
  'type',
  'model',
  'instructions',
  'output_modalities',
  'audio',
  'tools',
  'tool_choice',
  'max_output_tokens',
  'tracing',
  'prompt',
  'include',
  'truncation',
]);
const INPUT_FIELDS = new Set(['format', 'noise_reduction', 'transcription', 'turn_detection']);
const OUTPUT_FIELDS = new Set(['format', 'voice', 'speed']);
const VAD_FIELDS = new Set([
  'type',
  'threshold',
  'prefix_padding_ms',
  'silence_duration_ms',
  'idle_timeout_ms',
  'create_response',
  'interrupt_response',
  'eagerness',
]);

/**
 * semantic_vad's eagerness → the end-of-turn model's thresholds: `low` waits for a surer end (and
 * longer silence), `high` answers sooner; `auto` and `medium` are the live default.
 */
export const EAGERNESS: Readonly<Record<string, EndOfTurnSettings>> = {
  low: { eotThreshold: 0.85, eagerEotThreshold: 0.5, eotTimeoutMs: 8000 },
  medium: DEFAULT_END_OF_TURN,
  auto: DEFAULT_END_OF_TURN,
  high: { eotThreshold: 0.55, eagerEotThreshold: 0.3, eotTimeoutMs: 2500 },
};

export function parseConversationUpdate(raw: unknown, sessionModel: string, aliases: ReadonlyMap<string, string>) {
  const session = object(raw, 'session', true);
  known(session, SESSION_FIELDS, 'session');
  const update: ConversationUpdate = { settings: {}, view: {} };
  if (session.type !== undefined && session.type !== 'realtime') {
    throw new Refusal(
      'invalid_value',
      `Invalid value: ${JSON.stringify(session.type)}. This is a conversation session: session.type must be "realtime" (open a transcription session with ?intent=transcription).`,
      'session.type',
    );
  }
  if (session.model !== undefined) {
    const model = string(session.model, 'session.model', true)!;
    if ((aliases.get(model) ?? model) !== sessionModel) {
      throw new Refusal(
        'invalid_value',
        `The session's model is ${sessionModel}; session.model cannot change it (${JSON.stringify(model)})`,
        'session.model',
      );
    }
  }
  if (session.instructions !== undefined) {
    update.settings.instructions = string(session.instructions, 'session.instructions', true, MAX_TEXT);
  }
  if (session.output_modalities !== undefined) {
    update.settings.audio = outputModalities(session.output_modalities, 'session.output_modalities');
  }
  if (session.tools !== undefined) update.settings.tools = tools(session.tools, 'session.tools');
  if (session.tool_choice !== undefined)
    update.settings.toolChoice = toolChoice(session.tool_choice, 'session.tool_choice');
  if (session.max_output_tokens !== undefined) {
    update.settings.maxOutputTokens = maxOutputTokens(session.max_output_tokens, 'session.max_output_tokens');
  }
  // Tracing goes to OpenAI's dashboard; there is none here. Accepted (the Agents SDK sends it) and shown.
  if (session.tracing !== undefined) {
    if (session.tracing !== null && session.tracing !== 'auto' && !isRecord(session.tracing)) {
      throw new Refusal('invalid_value', 'session.tracing must be "auto", an object or null', 'session.tracing');
    }
    update.view.tracing = session.tracing;
  }
  if (session.prompt !== undefined && session.prompt !== null) {
    throw new Refusal(
      'unsupported_parameter',
      'session.prompt: stored prompt templates live on OpenAI and are not served here; send the text as session.instructions',
      'session.prompt',
    );
  }
  if (session.include !== undefined && session.include !== null) {
    const ok =
      Array.isArray(session.include) && session.include.every((i) => i === 'item.input_audio_transcription.logprobs');
    if (!ok)
      throw new Refusal(
        'invalid_value',
        'session.include may only hold "item.input_audio_transcription.logprobs"',
        'session.include',
      );
  }
  if (session.truncation !== undefined && session.truncation !== 'auto') {
    throw new Refusal(
      'unsupported_parameter',
      'session.truncation: only "auto" is served (the oldest items leave the context first)',
      'session.truncation',
    );
  }
  const audio = object(session.audio, 'session.audio');
  known(audio, new Set(['input', 'output']), 'session.audio');
  input(object(audio.input, 'session.audio.input'), update);
  output(object(audio.output, 'session.audio.output'), update);
  return update;
}

function input(fields: Fields, update: ConversationUpdate): void {
  const prefix = 'session.audio.input';
  known(fields, INPUT_FIELDS, prefix);
  const inputFormat = format(fields.format, `${prefix}.format`);
  if (inputFormat !== undefined) update.audioFormats = { ...update.audioFormats, input: inputFormat };
  if (fields.noise_reduction !== undefined && fields.noise_reduction !== null) {
    object(fields.noise_reduction, `${prefix}.noise_reduction`);
  }
  if (fields.transcription !== undefined) {
    if (fields.transcription === null) update.view.transcriptionModel = null;
    else {
      const transcription = object(fields.transcription, `${prefix}.transcription`);
      known(transcription, new Set(['model', 'language', 'prompt']), `${prefix}.transcription`);
      const model = string(transcription.model, `${prefix}.transcription.model`) ?? 'vendor-asr-streaming';
      // The Agents SDK names an OpenAI transcription model: the session's own recogniser serves it.
      if (!isServedModel(model)) {
        throw new Refusal(
          'invalid_value',
          `Invalid value: ${JSON.stringify(model)}. The session transcribes with vendor-asr-streaming (OpenAI transcription model names are accepted for it).`,
          `${prefix}.transcription.model`,
        );
      }
      update.view.transcriptionModel = model;
    }
  }
  if (fields.turn_detection !== undefined) turnDetection(fields.turn_detection, update);
}

function turnDetection(value: unknown, update: ConversationUpdate): void {
  const param = 'session.audio.input.turn_detection';
  if (value === null) {
    update.turnDetection = null;
    update.view.turnDetection = null;
    update.settings.createResponse = false;
    update.interruptResponse = true;
    update.idleTimeoutMs = null;
    return;
  }
  const vad = object(value, param);
  known(vad, VAD_FIELDS, param);
  const type = vad.type ?? 'server_vad';
  if (type !== 'server_vad' && type !== 'semantic_vad') {
    throw new Refusal(
      'invalid_value',
      `${param}.type must be "server_vad" or "semantic_vad" (or null for manual commits)`,
      `${param}.type`,
    );
  }
  for (const flag of ['create_response', 'interrupt_response'] as const) {
    if (vad[flag] !== undefined && typeof vad[flag] !== 'boolean') {
      throw new Refusal('invalid_type', `${param}.${flag} must be a boolean`, `${param}.${flag}`);
    }
  }
  const idleTimeoutMs = vad.idle_timeout_ms ?? null;
  if (idleTimeoutMs !== null && type === 'semantic_vad') {
    throw new Refusal(
      'unsupported_parameter',
      `${param}.idle_timeout_ms is served with server_vad only, as OpenAI serves it (set it to null or use server_vad)`,
      `${param}.idle_timeout_ms`,
    );
  }
  update.idleTimeoutMs =
    idleTimeoutMs === null
      ? null
      : integer(idleTimeoutMs, `${param}.idle_timeout_ms`, IDLE_TIMEOUT_MS.min, IDLE_TIMEOUT_MS.max)!;
  const createResponse = vad.create_response !== false;
  const interruptResponse = vad.interrupt_response !== false;
  update.settings.createResponse = createResponse;
  update.interruptResponse = interruptResponse;
  if (type === 'semantic_vad') {
    const eagerness = vad.eagerness ?? 'auto';
    const endOfTurn = typeof eagerness === 'string' ? EAGERNESS[eagerness] : undefined;
    if (endOfTurn === undefined) {
      throw new Refusal('invalid_value', `${param}.eagerness must be low, medium, high or auto`, `${param}.eagerness`);
    }
    for (const field of ['threshold', 'prefix_padding_ms', 'silence_duration_ms']) {
      if (vad[field] !== undefined)
        throw new Refusal('unknown_parameter', `Unknown parameter: '${param}.${field}'.`, `${param}.${field}`);
    }
    update.turnDetection = { ...DEFAULT_VAD, endOfTurn };
    update.view.turnDetection = {
      type,
      eagerness,
      create_response: createResponse,
      interrupt_response: interruptResponse,
    };
    return;
  }
  if (vad.eagerness !== undefined)
    throw new Refusal('unknown_parameter', `Unknown parameter: '${param}.eagerness'.`, `${param}.eagerness`);
  const threshold = vad.threshold === undefined ? DEFAULT_VAD.threshold : vad.threshold;
  if (typeof threshold !== 'number' || threshold < 0 || threshold > 1) {
    throw new Refusal('invalid_value', `${param}.threshold must be a number between 0 and 1`, `${param}.threshold`);
  }
  const prefixPaddingMs =
    integer(vad.prefix_padding_ms, `${param}.prefix_padding_ms`, 0, 10_000) ?? DEFAULT_VAD.prefixPaddingMs;
  const silenceDurationMs =
    integer(vad.silence_duration_ms, `${param}.silence_duration_ms`, 0, 10_000) ?? DEFAULT_VAD.silenceDurationMs;
  update.turnDetection = { type: 'server_vad', threshold, prefixPaddingMs, silenceDurationMs };
  update.view.turnDetection = {
    type,
    threshold,
    prefix_padding_ms: prefixPaddingMs,
    silence_duration_ms: silenceDurationMs,
    idle_timeout_ms: update.idleTimeoutMs,
    create_response: createResponse,
    interrupt_response: interruptResponse,
  };
}

function output(fields: Fields, update: ConversationUpdate): void {
  const prefix = 'session.audio.output';
  known(fields, OUTPUT_FIELDS, prefix);
  const outputFormat = format(fields.format, `${prefix}.format`);
  if (outputFormat !== undefined) update.audioFormats = { ...update.audioFormats, output: outputFormat };
  if (fields.voice !== undefined) {
    if (fields.voice !== VOICE) {
      throw new Refusal('invalid_value', `${prefix}.voice: the one voice is "${VOICE}"`, `${prefix}.voice`);
    }
    update.view.voice = VOICE;
  }
  if (fields.speed !== undefined && fields.speed !== 1) {
    throw new Refusal(
      'unsupported_parameter',
      `${prefix}.speed: only 1 is served (the speech server's speed is the operator's setting)`,
      `${prefix}.speed`,
    );
  }
}

function format(value: unknown, param: string): AudioFormatName | undefined {
  if (value === undefined || value === null) return undefined;
  const name = realtimeFormatName(value);
  if (name === null)
    throw new Refusal('unsupported_audio_format', `${param}: ${REALTIME_FORMATS_SERVED} is served`, param);
  return name;
}

/**
 * What an engine that answers spoken turns by itself (the embedded voicechat) cannot do: keep
 * answering over the user (it ends its answer when it hears speech) or prompt after a silence (it
 * is never asked for a response). Null when the update asks for neither.
 */
export function unservedBySelfAnswering(update: ConversationUpdate): Refusal | null {
  const param = 'session.audio.input.turn_detection';
  const why = "this model's engine (the embedded voicechat) answers spoken turns by itself";
  if (update.interruptResponse === false) {
    const message = `${param}.interrupt_response: false is not served: ${why} and ends its answer when the user speaks`;
    return new Refusal('unsupported_parameter', message, `${param}.interrupt_response`);
  }
  if (update.idleTimeoutMs !== undefined && update.idleTimeoutMs !== null) {
    const message = `${param}.idle_timeout_ms is not served: ${why} and cannot be asked to prompt the user`;
    return new Refusal('unsupported_parameter', message, `${param}.idle_timeout_ms`);
  }
  return null;
}
