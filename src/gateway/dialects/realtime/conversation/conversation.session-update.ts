/**
 * `session.update` of a conversation session (GA `type: "realtime"`) → what changes: the settings
 * responses are made with (the conversation model's), the engine's turn detection (a neutral
 * `update` for the session core), and what `session.updated` shows. This file is the dialect's
 * vocabulary (which field is which, strict about unknown fields like OpenAI); the rules are the
 * session core's settings, which a client secret's request is held to as well. The Agents SDK's
 * default configuration (pcm 24 kHz in and out, semantic_vad, an OpenAI transcription model,
 * tracing) is accepted as it is.
 */
import type { AudioFormatName } from '../../../../platform/audio/audio-format';
import type { ConversationSettings, ConversationTurns, TurnDetectionConfig } from '../../../../session-core';
import {
  checkFormat,
  checkLanguage,
  checkNoiseReduction,
  checkSpeed,
  checkVoice,
  conversationTurns,
  instructions,
  known,
  maxOutputTokens,
  object,
  outputModalities,
  prompt,
  realtimeTurnDetectionView,
  SettingRefusal,
  string,
  toolChoice,
  tools,
  tracing,
  truncation,
  unservedByEngine,
} from '../../../../session-core';
import type { Fields } from '../../../connection/client-frames';
import { isServedModel } from '../realtime.session-update';

export { EAGERNESS, IDLE_TIMEOUT_MS } from '../../../../session-core';

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
  /** With turnDetection: the turns as the rules read them (what a client secret stores). */
  turns?: ConversationTurns;
}

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
const LOGPROBS = 'item.input_audio_transcription.logprobs';

export function parseConversationUpdate(raw: unknown, sessionModel: string, aliases: ReadonlyMap<string, string>) {
  const session = object(raw, 'session', true);
  known(session, SESSION_FIELDS, 'session');
  const update: ConversationUpdate = { settings: {}, view: {} };
  if (session.type !== undefined && session.type !== 'realtime') {
    throw new SettingRefusal(
      'invalid_value',
      `Invalid value: ${JSON.stringify(session.type)}. This is a conversation session: session.type must be "realtime" (open a transcription session with ?intent=transcription).`,
      'session.type',
    );
  }
  if (session.model !== undefined) {
    const model = string(session.model, 'session.model', true)!;
    if ((aliases.get(model) ?? model) !== sessionModel) {
      throw new SettingRefusal(
        'invalid_value',
        `The session's model is ${sessionModel}; session.model cannot change it (${JSON.stringify(model)})`,
        'session.model',
      );
    }
  }
  const { settings } = update;
  if (session.instructions !== undefined)
    settings.instructions = instructions(session.instructions, 'session.instructions');
  if (session.output_modalities !== undefined) {
    settings.audio = outputModalities(session.output_modalities, 'session.output_modalities');
  }
  if (session.tools !== undefined) settings.tools = tools(session.tools, 'session.tools');
  if (session.tool_choice !== undefined) settings.toolChoice = toolChoice(session.tool_choice, 'session.tool_choice');
  if (session.max_output_tokens !== undefined) {
    settings.maxOutputTokens = maxOutputTokens(session.max_output_tokens, 'session.max_output_tokens');
  }
  if (session.tracing !== undefined) update.view.tracing = tracing(session.tracing, 'session.tracing');
  prompt(session.prompt, 'session.prompt');
  if (session.include !== undefined && session.include !== null) {
    if (!Array.isArray(session.include) || session.include.some((item) => item !== LOGPROBS)) {
      throw new SettingRefusal('invalid_value', `session.include may only hold "${LOGPROBS}"`, 'session.include');
    }
  }
  truncation(session.truncation, 'session.truncation');
  const audio = object(session.audio, 'session.audio');
  known(audio, new Set(['input', 'output']), 'session.audio');
  input(object(audio.input, 'session.audio.input'), update);
  output(object(audio.output, 'session.audio.output'), update);
  return update;
}

function input(fields: Fields, update: ConversationUpdate): void {
  const prefix = 'session.audio.input';
  known(fields, INPUT_FIELDS, prefix);
  const inputFormat = checkFormat(fields.format, `${prefix}.format`);
  if (inputFormat !== undefined) update.audioFormats = { ...update.audioFormats, input: inputFormat };
  checkNoiseReduction(fields.noise_reduction, `${prefix}.noise_reduction`);
  if (fields.transcription !== undefined) {
    if (fields.transcription === null) update.view.transcriptionModel = null;
    else {
      const transcription = object(fields.transcription, `${prefix}.transcription`);
      known(transcription, new Set(['model', 'language', 'prompt']), `${prefix}.transcription`);
      const model = string(transcription.model, `${prefix}.transcription.model`) ?? 'vendor-asr-streaming';
      // The Agents SDK names an OpenAI transcription model: the session's own recogniser serves it.
      if (!isServedModel(model)) {
        throw new SettingRefusal(
          'invalid_value',
          `Invalid value: ${JSON.stringify(model)}. The session transcribes with vendor-asr-streaming (OpenAI transcription model names are accepted for it).`,
          `${prefix}.transcription.model`,
        );
      }
      checkLanguage(transcription.language, `${prefix}.transcription.language`);
      string(transcription.prompt, `${prefix}.transcription.prompt`);
      update.view.transcriptionModel = model;
    }
  }
  if (fields.turn_detection !== undefined) {
    const turns = conversationTurns(fields.turn_detection, `${prefix}.turn_detection`);
    update.turns = turns;
    update.turnDetection = turns.turnDetection;
    update.settings.createResponse = turns.createResponse;
    update.interruptResponse = turns.interruptResponse;
    update.idleTimeoutMs = turns.idleTimeoutMs;
    update.view.turnDetection = realtimeTurnDetectionView(turns);
  }
}

function output(fields: Fields, update: ConversationUpdate): void {
  const prefix = 'session.audio.output';
  known(fields, OUTPUT_FIELDS, prefix);
  const outputFormat = checkFormat(fields.format, `${prefix}.format`);
  if (outputFormat !== undefined) update.audioFormats = { ...update.audioFormats, output: outputFormat };
  const voice = checkVoice(fields.voice, `${prefix}.voice`);
  if (voice !== undefined) update.view.voice = voice;
  checkSpeed(fields.speed, `${prefix}.speed`);
}

/** What this session's engine cannot serve of the update (session-core/settings/engine-abilities.ts). */
export function unservedBySelfAnswering(update: ConversationUpdate): SettingRefusal | null {
  return unservedByEngine(update, { responses: false, tools: true }, '');
}
