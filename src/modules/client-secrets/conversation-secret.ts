/**
 * A realtime (conversation) client secret's settings, held once, when the secret is issued, to the
 * session core's rules (session-core/settings), the ones a socket's `session.update` is held to: a
 * value they refuse as malformed is a 422 at its field; one well formed but not served (a tool for
 * an engine that calls none, a stored prompt) is a 400 invalid_parameter, as the contract has it.
 * What passes is stored normalized with the secret and read back at redemption, never re-parsed.
 */
import { AppError } from '../../platform/errors/app-error';
import { RequestValidationError } from '../../platform/errors/validation-error';
import {
  checkFormat,
  checkLanguage,
  checkNoiseReduction,
  checkSpeed,
  checkVoice,
  conversationTurns,
  DEFAULT_CONVERSATION_SETTINGS,
  instructions,
  known,
  maxOutputTokens,
  object,
  OPENAI_TRANSCRIPTION_MODELS,
  outputModalities,
  prompt,
  realtimeSettingsView,
  serverVadView,
  SettingRefusal,
  string,
  toolChoice,
  tools,
  tracing,
  truncation,
  unservedByEngine,
  type ConversationCapabilities,
  type ConversationTurns,
  type EndOfTurnSettings,
  type SecretConversation,
} from '../../session-core';
import { TRANSCRIPTION_MODEL } from '../../engines';
import type { RequestedSessionConfig, RequestedTurnDetection } from '../sessions';
import type { AudioFormatName } from '../../platform/audio/audio-format';
import { CONVERSATION_FIELDS, type RequestedSessionDto } from './dto/requested-session.dto';

export interface ConversationSecret {
  /** The session row's configuration: its audio, with the turns the engine runs. */
  readonly requested: RequestedSessionConfig;
  /** The turns it starts with: those asked for, or server_vad's defaults. */
  readonly turns: ConversationTurns;
  /** What the secret stores (encodeSecretConversation). */
  readonly stored: SecretConversation;
  /** The settings as `session.created` will show them (GA names, defaults filled in). */
  readonly shown: Record<string, unknown>;
}

const INPUT_FIELDS = new Set(['format', 'noise_reduction', 'transcription', 'turn_detection']);
const OUTPUT_FIELDS = new Set(['format', 'voice', 'speed']);

/** `session` (a GA `type: "realtime"` session) for a conversation on `model`, whose engine can do `engine`. */
export function conversationSecret(
  session: RequestedSessionDto,
  model: string,
  engine: ConversationCapabilities | undefined,
): ConversationSecret {
  try {
    const settings: { -readonly [K in keyof SecretConversation['settings']]: SecretConversation['settings'][K] } = {};
    if (session.instructions !== undefined)
      settings.instructions = instructions(session.instructions, 'session.instructions');
    if (session.tools !== undefined) settings.tools = tools(session.tools, 'session.tools');
    if (session.tool_choice !== undefined) settings.toolChoice = toolChoice(session.tool_choice, 'session.tool_choice');
    if (session.output_modalities !== undefined) {
      settings.audio = outputModalities(session.output_modalities, 'session.output_modalities');
    }
    if (session.max_output_tokens !== undefined) {
      settings.maxOutputTokens = maxOutputTokens(session.max_output_tokens, 'session.max_output_tokens');
    }
    const shownTracing = session.tracing === undefined ? undefined : tracing(session.tracing, 'session.tracing');
    prompt(session.prompt, 'session.prompt');
    truncation(session.truncation, 'session.truncation');
    const audio = object(session.audio, 'session.audio');
    const input = object(audio.input, 'session.audio.input');
    known(input, INPUT_FIELDS, 'session.audio.input');
    const inputFormat = checkFormat(input.format, 'session.audio.input.format');
    checkNoiseReduction(input.noise_reduction, 'session.audio.input.noise_reduction');
    const transcription = transcriptionOf(input.transcription);
    const asked = input.turn_detection;
    // Absent: the socket's own start, server_vad's defaults (silence ends turns, as OpenAI's does).
    const turns = conversationTurns(asked === undefined ? {} : asked, 'session.audio.input.turn_detection');
    const output = object(audio.output, 'session.audio.output');
    known(output, OUTPUT_FIELDS, 'session.audio.output');
    const outputFormat = checkFormat(output.format, 'session.audio.output.format');
    const voice = checkVoice(output.voice, 'session.audio.output.voice');
    checkSpeed(output.speed, 'session.audio.output.speed');
    const unserved = unservedByEngine({ tools: settings.tools, ...turns }, engine, model);
    if (unserved !== null) throw unserved;
    const stored: SecretConversation = {
      settings,
      ...(asked === undefined ? {} : { turns }),
      ...(shownTracing === undefined ? {} : { tracing: shownTracing }),
      ...(transcription.model === undefined ? {} : { transcriptionModel: transcription.model }),
    };
    const { createResponse } = turns;
    return {
      requested: {
        type: 'live',
        model,
        include: session.include,
        audio: {
          input: {
            ...(inputFormat === undefined ? {} : { format: formatRequest(inputFormat) }),
            transcription: { language: transcription.language, prompt: transcription.prompt },
            turn_detection: turnDetectionRequest(turns),
          },
          ...(voice === undefined && outputFormat === undefined
            ? {}
            : {
                output: {
                  ...(voice === undefined ? {} : { voice }),
                  ...(outputFormat === undefined ? {} : { format: formatRequest(outputFormat) }),
                },
              }),
        },
      },
      turns,
      stored,
      shown: realtimeSettingsView({ ...DEFAULT_CONVERSATION_SETTINGS, ...settings, createResponse }),
    };
  } catch (error) {
    if (error instanceof SettingRefusal) throw refusalError(error);
    throw error;
  }
}

/** Conversation fields on a session that is not a Realtime conversation: it could not apply them. */
export function refuseConversationFields(session: RequestedSessionDto | undefined): void {
  const field = CONVERSATION_FIELDS.find((name) => session?.[name] !== undefined);
  if (field === undefined) return;
  throw new AppError(
    'invalid_parameter',
    `session.${field} configures a conversation: send it with session.type "realtime" to POST /v1/realtime/client_secrets`,
    { param: `session.${field}` },
  );
}

/** A conversation transcribes with its own recogniser whatever OpenAI transcription model the client names. */
function transcriptionOf(value: unknown): { model?: string; language?: string; prompt?: string } {
  const prefix = 'session.audio.input.transcription';
  if (value === undefined || value === null) return {};
  const fields = object(value, prefix);
  known(fields, new Set(['model', 'language', 'prompt']), prefix);
  const model = string(fields.model, `${prefix}.model`);
  if (model !== undefined && model !== TRANSCRIPTION_MODEL && !OPENAI_TRANSCRIPTION_MODELS.has(model)) {
    throw new SettingRefusal(
      'invalid_value',
      `Invalid value: ${JSON.stringify(model)}. The session transcribes with ${TRANSCRIPTION_MODEL} (OpenAI transcription model names are accepted for it).`,
      `${prefix}.model`,
    );
  }
  return {
    model,
    language: checkLanguage(fields.language, `${prefix}.language`),
    prompt: string(fields.prompt, `${prefix}.prompt`),
  };
}

/** The turns in the session row's spelling: the engine's turn detection, and the flags the runtime reads. */
function turnDetectionRequest(turns: ConversationTurns): RequestedTurnDetection | null {
  const td = turns.turnDetection;
  if (td === null) return null;
  return {
    ...serverVadView(td),
    end_of_turn: endOfTurnRequest(td.endOfTurn ?? null),
    create_response: turns.createResponse,
    interrupt_response: turns.interruptResponse,
    idle_timeout_ms: turns.idleTimeoutMs,
  };
}

function endOfTurnRequest(settings: EndOfTurnSettings | null) {
  if (settings === null) return null;
  const { eotThreshold, eagerEotThreshold, eotTimeoutMs } = settings;
  return { eot_threshold: eotThreshold, eager_eot_threshold: eagerEotThreshold, eot_timeout_ms: eotTimeoutMs };
}

function refusalError(refusal: SettingRefusal): Error {
  const { message, param } = refusal;
  if (refusal.unserved) return new AppError('invalid_parameter', message, { param });
  return new RequestValidationError([
    { loc: ['body', ...locOf(param ?? 'session')], msg: message, type: refusal.code },
  ]);
}

/** `session.tools[0].name` → `['session', 'tools', 0, 'name']`, the 422's loc. */
export function locOf(param: string): (string | number)[] {
  return param
    .split(/\.|(?=\[)/)
    .map((part) => (/^\[\d+\]$/.test(part) ? Number(part.slice(1, -1)) : part))
    .filter((part) => part !== '');
}

/** A format name as the stored request spells it (`audio/pcmu`; G.711 at 8 kHz). */
function formatRequest(name: AudioFormatName): { type: string; rate: number } {
  return name === 'pcm16' ? { type: 'audio/pcm', rate: 24000 } : { type: `audio/${name}`, rate: 8000 };
}
