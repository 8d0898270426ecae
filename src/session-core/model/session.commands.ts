/**
 * What a dialect asks of a session after parsing a client frame: the neutral client events.
 * Every dialect maps its own messages onto these (live `session.input_audio.append`, Realtime
 * `input_audio_buffer.append` and a Deepgram binary frame all become `append`).
 */
import type { EndOfTurnSettings } from '../engine/engine.port';
import type { Effect } from './session.effects';
import type { SessionMachine } from '../machine/session.machine';
import type { SessionConfig, SessionConfigChanges } from './session.types';

export type SessionCommand =
  | {
      readonly type: 'start';
      readonly config: SessionConfig;
      readonly clientEventId?: string;
      /**
       * The dialect has no start event of its own (Realtime, Deepgram start on connect): a start
       * the client cannot retry ends the socket when it fails.
       */
      readonly implicit?: boolean;
    }
  | {
      readonly type: 'update';
      readonly clientEventId?: string;
      /** Engine settings to change; allowed until the first audio (the engine stream is reopened). */
      readonly changes?: SessionConfigChanges;
      /** Named in the `session_config_locked` refusal when the change comes too late. */
      readonly param?: string;
    }
  /** pcm16 24 kHz mono, any length (odd lengths are refused with invalid_audio). */
  | { readonly type: 'append'; readonly audio: Buffer; readonly clientEventId?: string }
  | { readonly type: 'commit'; readonly clientEventId?: string }
  | { readonly type: 'clear'; readonly clientEventId?: string }
  | { readonly type: 'mute'; readonly clientEventId?: string }
  | { readonly type: 'unmute'; readonly clientEventId?: string }
  | { readonly type: 'close'; readonly clientEventId?: string }
  /** New end-of-turn thresholds (Flux Configure): they take effect at once, audio or not. */
  | { readonly type: 'turn_settings'; readonly settings: EndOfTurnSettings }
  /** A refusal the dialect found itself (bad JSON, unknown event, invalid field). */
  | {
      readonly type: 'reject';
      readonly code: string;
      readonly message: string;
      readonly param: string | null;
      readonly clientEventId?: string;
    };

export type SessionCommandType = SessionCommand['type'];

/** Hands a command to the machine; `nowMs` times appends against the wall clock. */
export function dispatchCommand(machine: SessionMachine, command: SessionCommand, nowMs: number): readonly Effect[] {
  switch (command.type) {
    case 'append':
      return machine.appendAudio(command.audio, nowMs, command.clientEventId);
    case 'start':
      return machine.start(command.config, command.clientEventId, command.implicit === true);
    case 'update':
      return machine.update(command.clientEventId, command.changes, command.param);
    case 'commit':
      return machine.commit(command.clientEventId);
    case 'clear':
      return machine.clear(command.clientEventId);
    case 'mute':
      return machine.mute(command.clientEventId);
    case 'unmute':
      return machine.unmute(command.clientEventId);
    case 'close':
      return machine.close({ kind: 'client', clientEventId: command.clientEventId });
    case 'turn_settings':
      return machine.configureTurns(command.settings);
    case 'reject':
      return machine.reject(command.code, command.message, command.param, command.clientEventId);
  }
}
