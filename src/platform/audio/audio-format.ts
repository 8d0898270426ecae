/**
 * The audio formats a compatible socket may carry, and their conversion to and from the session's
 * own pcm16 mono at 24 kHz. Sessions, engines, turns and metering only ever see pcm16 24 kHz, so
 * every time on the wire (offsets, `audio_end_ms`, durations) is the audio's own time whatever the
 * format. The live protocol serves pcm16 only (the spec); OpenAI's and Deepgram's sockets serve
 * G.711 as their vendors do.
 */
import { G711Stream, type G711Law } from './g711';

/** `pcm16`: 24 kHz little-endian; `pcmu`/`pcma`: G.711 mu-law/A-law at 8 kHz. */
export type AudioFormatName = 'pcm16' | 'pcmu' | 'pcma';

export interface AudioFormats {
  readonly input: AudioFormatName;
  readonly output: AudioFormatName;
}

export const PCM16_FORMATS: AudioFormats = { input: 'pcm16', output: 'pcm16' };

const SESSION_RATE = 24_000;
const LAW: Record<Exclude<AudioFormatName, 'pcm16'>, G711Law> = { pcmu: 'mulaw', pcma: 'alaw' };

/**
 * An OpenAI Realtime format → its name: GA objects (`{type: "audio/pcm", rate: 24000}`,
 * `{type: "audio/pcmu"}`, `{type: "audio/pcma"}`) or the older strings (`pcm16`, `g711_ulaw`,
 * `g711_alaw`), which the Agents SDK still accepts from its users. Null: not served.
 */
export function realtimeFormatName(value: unknown): AudioFormatName | null {
  if (value === 'pcm16') return 'pcm16';
  if (value === 'g711_ulaw') return 'pcmu';
  if (value === 'g711_alaw') return 'pcma';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const { type, rate, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return null;
  if (type === 'audio/pcm') return rate === undefined || rate === null || rate === SESSION_RATE ? 'pcm16' : null;
  if (type !== 'audio/pcmu' && type !== 'audio/pcma') return null;
  if (rate !== undefined && rate !== null && rate !== 8000) return null;
  return type === 'audio/pcmu' ? 'pcmu' : 'pcma';
}

export const REALTIME_FORMATS_SERVED =
  '{"type":"audio/pcm","rate":24000}, {"type":"audio/pcmu"} or {"type":"audio/pcma"} (or pcm16, g711_ulaw, g711_alaw)';

/** How OpenAI's GA sessions show a format. */
export function realtimeFormatJson(name: AudioFormatName): { type: string; rate?: number } {
  return name === 'pcm16' ? { type: 'audio/pcm', rate: SESSION_RATE } : { type: `audio/${name}` };
}

/** Bytes per millisecond of a format on the wire. */
export function bytesPerMs(name: AudioFormatName): number {
  return name === 'pcm16' ? 48 : 8;
}

/**
 * One session's conversions: client audio in its input format → pcm16 24 kHz, and the session's
 * pcm16 24 kHz → its output format. Each direction keeps its resampler's history, and a change of
 * format starts that direction afresh.
 */
export class WireAudio {
  private formats: AudioFormats = PCM16_FORMATS;
  private decoder: G711Stream | null = null;
  private encoder: G711Stream | null = null;

  constructor(formats: AudioFormats = PCM16_FORMATS) {
    this.set(formats);
  }

  get current(): AudioFormats {
    return this.formats;
  }

  set(formats: Partial<AudioFormats>): void {
    const next = { ...this.formats, ...formats };
    if (formats.input !== undefined)
      this.decoder = next.input === 'pcm16' ? null : new G711Stream(LAW[next.input], 'in', SESSION_RATE);
    if (formats.output !== undefined)
      this.encoder = next.output === 'pcm16' ? null : new G711Stream(LAW[next.output], 'out', SESSION_RATE);
    this.formats = next;
  }

  /** Client audio → pcm16 24 kHz (the same buffer for pcm16). */
  input(bytes: Buffer): Buffer {
    return this.decoder === null ? bytes : this.decoder.push(bytes);
  }

  /** pcm16 24 kHz → the client's output format (the same buffer for pcm16). */
  output(pcm: Buffer): Buffer {
    return this.encoder === null ? pcm : this.encoder.push(pcm);
  }
}
