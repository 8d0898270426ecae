/**
 * The outbound half of the Flux dialect: neutral events → `Connected`, `TurnInfo` and `Error`, each
 * with the request_id and the next sequence_id (from 0, over every message the server sends, the
 * connection's own ConfigureSuccess/ConfigureFailure included: it builds them here).
 *
 * TurnInfo follows the session's user turns: `StartOfTurn` on speech start, then the session
 * core's end-of-turn events (`Update` about every 250 ms of audio, `EagerEndOfTurn`, `TurnResumed`,
 * `EndOfTurn` with its trigger and the final transcript). Transcript deltas, acks, usage and
 * warnings have no Flux message. Errors of the service are sent as `Error`; refusals of client
 * messages are not (Flux has no such message).
 */
import type { EventRenderer, EndOfTurnSettings, EngineWord } from '../../../../session-core';
import type { ServerEvent } from '../../../../session-core';
import { seconds } from '../shared/deepgram-words';

type TurnEvent = Extract<ServerEvent, { type: 'turn' }>;

const TURN_EVENTS: Readonly<Record<TurnEvent['phase'], string>> = {
  update: 'Update',
  eager_end: 'EagerEndOfTurn',
  resumed: 'TurnResumed',
  end: 'EndOfTurn',
};

export class FluxRenderer implements EventRenderer {
  private sequence = 0;
  private turnIndex = 0;
  private turnStartMs = 0;

  constructor(private readonly requestId: string) {}

  render(event: ServerEvent): string | null {
    switch (event.type) {
      case 'started':
        return this.frame({ type: 'Connected' });
      case 'speech_started':
        this.turnStartMs = event.startMs;
        return this.turnInfo('StartOfTurn', event.startMs, event.startMs, '', 0);
      case 'turn':
        return this.turn(event);
      case 'error':
        if (event.error.origin !== 'server') return null;
        return this.frame({ type: 'Error', code: event.error.code.toUpperCase(), description: event.error.message });
      default:
        return null;
    }
  }

  configureSuccess(settings: EndOfTurnSettings, keyterms: readonly string[]): string {
    const thresholds = {
      eot_threshold: settings.eotThreshold,
      ...(settings.eagerEotThreshold === null ? {} : { eager_eot_threshold: settings.eagerEotThreshold }),
      eot_timeout_ms: settings.eotTimeoutMs,
    };
    return this.frame({ type: 'ConfigureSuccess', thresholds, keyterms });
  }

  configureFailure(): string {
    return this.frame({ type: 'ConfigureFailure' });
  }

  /** A fatal error of the dialect itself (an undecodable message), sent before the socket closes. */
  error(code: string, description: string): string {
    return this.frame({ type: 'Error', code, description });
  }

  private turn(event: TurnEvent): string {
    const start = Math.min(this.turnStartMs, event.startMs);
    const info = this.turnInfo(
      TURN_EVENTS[event.phase],
      start,
      event.endMs,
      event.transcript,
      event.confidence,
      event.words,
      event.phase === 'end' ? (event.trigger ?? 'model') : undefined,
    );
    if (event.phase === 'end') this.turnIndex++;
    return info;
  }

  private turnInfo(
    name: string,
    startMs: number,
    endMs: number,
    transcript: string,
    confidence: number,
    engineWords?: readonly EngineWord[],
    trigger?: string,
  ): string {
    const words =
      engineWords !== undefined && engineWords.length > 0
        ? engineWords.map((w) => ({
            word: w.word,
            confidence: round3(w.confidence),
            start: seconds(w.startMs),
            end: seconds(w.endMs),
          }))
        : transcript
            .split(/\s+/)
            .filter((word) => word !== '')
            .map((word) => ({ word, confidence: 1 }));
    return this.frame({
      type: 'TurnInfo',
      event: name,
      turn_index: this.turnIndex,
      audio_window_start: seconds(startMs),
      audio_window_end: seconds(Math.max(startMs, endMs)),
      transcript,
      words,
      end_of_turn_confidence: confidence,
      ...(trigger === undefined ? {} : { trigger }),
    });
  }

  private frame(fields: Record<string, unknown> & { type: string }): string {
    return JSON.stringify({ ...fields, request_id: this.requestId, sequence_id: this.sequence++ });
  }
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
