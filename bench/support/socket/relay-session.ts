/**
 * One socket of the bare relay: the least a server must do to carry the benchmark's traffic.
 * It parses each JSON frame, decodes its base64 audio, tells speech from silence with the same
 * loudness test as the scripted engine, and answers on the same frames with events of the same
 * wire shape, pacing an equal amount of output audio back in real time (80 ms frames, one frame
 * ahead, base64-encoded per frame). No framework, state machine, metering or database.
 */
import type { WebSocket } from 'ws';
import { DEFAULT_SCRIPTED_OPTIONS } from '../../../src/engines/scripted/scripted.options';
import { frameRms } from '../../../src/engines/scripted/scripted.audio';
import { END_SILENCE_FRAMES, FRAME_BYTES, FRAME_MS, outputDueMs } from './script';

const { speechRms, wordEveryMs, reply } = DEFAULT_SCRIPTED_OPTIONS;
const REPLY_WORDS = reply.text.split(' ');
const WORD_MS = reply.durationMs / REPLY_WORDS.length;
const METER_FRAMES = 62;

interface Playing {
  itemId: string;
  pcm: Buffer;
  frame: number;
  word: number;
  startedAt: number;
  timer: NodeJS.Timeout | null;
}

export class RelaySession {
  private sequence = 0;
  private frames = 0;
  private speechMs = 0;
  private silenceFrames = 0;
  private words = 0;
  private turnItem: string | null = null;
  private items = 0;
  private replies = 0;
  private playing: Playing | null = null;

  constructor(
    private readonly ws: WebSocket,
    private readonly replyPcm: Buffer,
  ) {}

  onMessage(data: Buffer): void {
    const event = JSON.parse(data.toString('utf8')) as { type?: string; audio?: string };
    switch (event.type) {
      case 'session.input_audio.append':
        return this.append(Buffer.from(event.audio ?? '', 'base64'));
      case 'session.start':
        return this.event({ type: 'session.started', session: { id: `sess_relay_${Date.now()}`, object: 'session' } });
      case 'session.close':
        this.stop();
        this.event({ type: 'session.usage.updated', usage: this.usage() });
        this.event({ type: 'session.closed', reason: 'close_requested', usage: this.usage() });
        return this.ws.close(1000);
    }
  }

  stop(): void {
    if (this.playing?.timer) clearTimeout(this.playing.timer);
    this.playing = null;
  }

  private append(pcm: Buffer): void {
    this.frames++;
    if (this.frames % METER_FRAMES === 0) this.event({ type: 'session.usage.updated', usage: this.usage() });
    if (frameRms(pcm) > speechRms) {
      if (this.turnItem === null) {
        this.turnItem = `item_in_${++this.items}`;
        this.speechMs = 0;
        this.words = 0;
        this.turn({ type: 'speech_started', item_id: this.turnItem, start_ms: this.frames * FRAME_MS });
      }
      this.speechMs += pcm.length / (FRAME_BYTES / FRAME_MS);
      this.silenceFrames = 0;
      if (this.speechMs >= (this.words + 1) * wordEveryMs) {
        this.words++;
        this.event({ type: 'session.input_transcript.delta', item_id: this.turnItem, delta: 'one', done: false });
      }
    } else if (this.turnItem !== null && ++this.silenceFrames >= END_SILENCE_FRAMES) {
      const itemId = this.turnItem;
      this.turnItem = null;
      this.turn({ type: 'speech_stopped', item_id: itemId, end_ms: this.frames * FRAME_MS });
      this.event({ type: 'session.input_transcript.delta', item_id: itemId, delta: '', done: true, transcript: 'one' });
      this.answer();
    }
  }

  private answer(): void {
    this.stop();
    const itemId = `item_out_${++this.replies}`;
    this.turn({ type: 'response_started', item_id: itemId });
    this.playing = { itemId, pcm: this.replyPcm, frame: 0, word: 0, startedAt: Date.now(), timer: null };
    this.pump();
  }

  /** Sends every frame that is due, then waits for the next one, like the service's pacer. */
  private readonly pump = (): void => {
    const playing = this.playing;
    if (playing === null) return;
    playing.timer = null;
    const total = Math.ceil(playing.pcm.length / FRAME_BYTES);
    const elapsed = Date.now() - playing.startedAt;
    while (playing.frame < total && outputDueMs(playing.frame) <= elapsed) this.sendFrame(playing);
    if (playing.frame < total) {
      playing.timer = setTimeout(this.pump, Math.max(1, outputDueMs(playing.frame) - elapsed));
    } else if (elapsed >= outputDueMs(total)) {
      this.playing = null;
      this.turn({ type: 'response_done', item_id: playing.itemId, interrupted: false });
    } else {
      playing.timer = setTimeout(this.pump, Math.max(1, outputDueMs(total) - elapsed));
    }
  };

  private sendFrame(playing: Playing): void {
    const from = playing.frame * FRAME_BYTES;
    const pcm = playing.pcm.subarray(from, Math.min(playing.pcm.length, from + FRAME_BYTES));
    const startMs = playing.frame * FRAME_MS;
    playing.frame++;
    if (this.ws.bufferedAmount > 256 * 1024) return; // a stalled reader loses audio, as in the service
    this.ws.send(
      `{"type":"session.output_audio.delta","item_id":"${playing.itemId}","delta":"${pcm.toString('base64')}","start_ms":${startMs},"end_ms":${startMs + FRAME_MS}}`,
    );
    while (playing.word < REPLY_WORDS.length && playing.word * WORD_MS < playing.frame * FRAME_MS) {
      const word = REPLY_WORDS[playing.word++];
      this.event({ type: 'session.output_transcript.delta', item_id: playing.itemId, delta: word, done: false });
    }
  }

  private usage(): { frames: number; seconds: number } {
    return { frames: this.frames, seconds: (this.frames * FRAME_MS) / 1000 };
  }

  private turn(event: Record<string, unknown>): void {
    this.event({ type: 'session.turn.event', event });
  }

  private event(event: Record<string, unknown>): void {
    this.ws.send(JSON.stringify({ ...event, event_id: `evt_${++this.sequence}` }));
  }
}
