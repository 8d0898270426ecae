/**
 * The inbound half of the Flux dialect. Binary frames are audio; text frames are the control
 * messages Configure, ForceEndTurn and CloseStream. A Configure is checked here: its thresholds
 * have Flux's ranges, and a bad one is a ConfigureFailure (the stream goes on). Any other text
 * cannot be decoded and ends the stream with an Error, as Flux does.
 */
import { toBuffer, isRecord, type ClientFrame } from '../../../connection/client-frames';
import { EAGER_EOT_THRESHOLD, EOT_THRESHOLD, EOT_TIMEOUT_MS } from './flux.query';

export interface FluxThresholds {
  readonly eot_threshold?: number;
  readonly eager_eot_threshold?: number;
  readonly eot_timeout_ms?: number;
}

export type FluxMessage =
  | { readonly kind: 'audio'; readonly bytes: Buffer }
  | { readonly kind: 'configure'; readonly thresholds: FluxThresholds; readonly keyterms: readonly string[] | null }
  | { readonly kind: 'configure_invalid'; readonly reason: string }
  | { readonly kind: 'force_end_turn' }
  | { readonly kind: 'close_stream' }
  | { readonly kind: 'invalid'; readonly reason: string };

const RANGES: Readonly<Record<keyof FluxThresholds, { min: number; max: number; integer: boolean }>> = {
  eot_threshold: { ...EOT_THRESHOLD, integer: false },
  eager_eot_threshold: { ...EAGER_EOT_THRESHOLD, integer: false },
  eot_timeout_ms: { ...EOT_TIMEOUT_MS, integer: true },
};

export function parseFluxFrame(frame: ClientFrame, isBinary: boolean): FluxMessage {
  const bytes = toBuffer(frame);
  if (isBinary) return { kind: 'audio', bytes };
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { kind: 'invalid', reason: 'a text frame must be a JSON control message; audio goes in binary frames' };
  }
  const type = isRecord(value) ? value.type : undefined;
  switch (type) {
    case 'ForceEndTurn':
      return { kind: 'force_end_turn' };
    case 'CloseStream':
      return { kind: 'close_stream' };
    case 'Configure':
      return configure(value as Record<string, unknown>);
    default:
      return {
        kind: 'invalid',
        reason: `unknown message type ${JSON.stringify(type)}: send Configure, ForceEndTurn or CloseStream`,
      };
  }
}

function configure(message: Record<string, unknown>): FluxMessage {
  const thresholds: Record<string, number> = {};
  const given = message.thresholds ?? {};
  if (!isRecord(given)) return { kind: 'configure_invalid', reason: 'thresholds must be an object' };
  for (const [name, value] of Object.entries(given)) {
    const range = RANGES[name as keyof FluxThresholds];
    if (range === undefined) return { kind: 'configure_invalid', reason: `unknown threshold ${name}` };
    if (
      typeof value !== 'number' ||
      !(value >= range.min && value <= range.max) ||
      (range.integer && !Number.isInteger(value))
    ) {
      return { kind: 'configure_invalid', reason: `${name} must be a number from ${range.min} to ${range.max}` };
    }
    thresholds[name] = value;
  }
  const keyterms = message.keyterms;
  if (keyterms !== undefined && !(Array.isArray(keyterms) && keyterms.every((k) => typeof k === 'string'))) {
    return { kind: 'configure_invalid', reason: 'keyterms must be a list of strings' };
  }
  return { kind: 'configure', thresholds, keyterms: (keyterms as string[] | undefined) ?? null };
}
