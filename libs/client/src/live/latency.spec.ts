import type { LiveServerEvent } from '../../../protocol/live-events.js';
import { LatencyMeter } from './latency.js';

describe('LatencyMeter', () => {
  let clock = 0;
  const meter = () => new LatencyMeter(() => clock);
  const delta = (item: string, endMs: number, done = false): LiveServerEvent => ({
    type: 'session.input_transcript.delta',
    event_id: 'e',
    item_id: item,
    delta: 'w',
    start_ms: 0,
    end_ms: endMs,
    done,
  });
  const turn = (event: Extract<LiveServerEvent, { type: 'session.turn.event' }>['event']): LiveServerEvent => ({
    type: 'session.turn.event',
    event_id: 'e',
    event,
  });

  /** Sends 80 ms frames at real time from t=1000: frame k (input ms [80k, 80k+80)) leaves at 1080 + 80k. */
  const sendRealTime = (m: LatencyMeter, ms: number) => {
    for (let end = 80; end <= ms; end += 80) {
      clock = 1000 + end;
      m.inputSent(end);
    }
  };

  it('measures each figure from when the audio it refers to was sent', () => {
    const m = meter();
    sendRealTime(m, 4000);
    clock = 5200;
    expect(m.observe(delta('item_1', 1000))).toBe(true); // frame 12 left at 1000 + 1040
    expect(m.latest.firstPartialMs).toBe(5200 - 2040);
    expect(m.observe(delta('item_1', 1400))).toBe(false); // not the item's first delta
    m.observe(turn({ type: 'speech_stopped', item_id: 'item_1', end_ms: 2000 }));
    clock = 5500;
    m.observe(delta('item_1', 1900, true));
    expect(m.latest.finalAfterSpeechEndMs).toBe(5500 - 3080);
    clock = 6000;
    expect(m.observe({ type: 'session.output_audio.delta', item_id: 'r', delta: '', start_ms: 0, end_ms: 80 })).toBe(
      true,
    );
    expect(m.latest.firstAnswerAudioMs).toBe(6000 - 3080);
    // Later chunks of the same answer do not count again.
    clock = 9000;
    expect(m.observe({ type: 'session.output_audio.delta', item_id: 'r', delta: '', start_ms: 80, end_ms: 160 })).toBe(
      false,
    );
    expect(m.latest.firstAnswerAudioMs).toBe(2920);
  });

  it('reports nothing before any audio was sent', () => {
    const m = meter();
    expect(m.observe(delta('item_1', 100))).toBe(false);
    expect(m.latest.firstPartialMs).toBeNull();
  });
});
