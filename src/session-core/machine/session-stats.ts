/** The figures a session reports on `closed`, gathered from its parts. */
import type { InputAudio } from './input-audio';
import type { OutputTurns } from './output-turns';
import type { OutputStats, SessionStats } from '../model/session.types';

export function sessionStats(
  durationMs: number,
  counts: { readonly turns: number; readonly errors: number },
  input: InputAudio,
  turns: OutputTurns,
  output: OutputStats,
): SessionStats {
  return {
    durationMs: Math.max(0, Math.round(durationMs)),
    inputFrames: input.usage.frames,
    mutedFrames: input.mutedFrames,
    droppedInputMs: input.droppedMs,
    outputFrames: output.framesSent,
    outputDroppedFrames: output.framesDropped,
    turns: counts.turns,
    responses: turns.responses,
    interruptions: turns.interruptions,
    warnings: input.warnings + output.warnings,
    errors: counts.errors,
  };
}
