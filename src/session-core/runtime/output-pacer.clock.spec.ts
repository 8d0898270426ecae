import { FRAME_BYTES } from '../engine/engine.port';
import { ManualClockHost } from '../../platform/clock/testing/manual-clock-host';
import { TickScheduler } from '../../platform/clock/tick-scheduler';
import { OutputPacer } from './output-pacer';

/** Pacers of many sessions on the one shared clock (the gateway hands every runtime the TickScheduler). */
describe('OutputPacer on the shared clock', () => {
  const SESSIONS = 40;
  const TICK_MS = 5;

  const setup = () => {
    const host = new ManualClockHost(0);
    const clock = new TickScheduler({ tickMs: TICK_MS, host });
    const sent: { session: number; startMs: number; originMs: number; at: number }[] = [];
    const pacers = Array.from({ length: SESSIONS }, (_, session) => {
      const originMs = clock.now();
      const pacer = new OutputPacer({
        clock,
        originMs,
        emit: (event) => {
          if (event.type === 'output_audio') sent.push({ session, startMs: event.startMs, originMs, at: clock.now() });
        },
        drained: () => undefined,
        backlog: () => 0,
      });
      return pacer;
    });
    return { host, clock, sent, pacers };
  };

  it('keeps each session on its own 80 ms cadence and phase, each frame served at the first tick after it is due', () => {
    const { host, sent, pacers } = setup();
    // Replies begin 2 ms apart: 40 phases over one 80 ms frame.
    for (let s = 0; s < SESSIONS; s++) {
      host.advance(2);
      pacers[s].pushAudio(`out${s}`, Buffer.alloc(FRAME_BYTES * 12));
    }
    host.advance(1200);
    for (let s = 0; s < SESSIONS; s++) {
      const frames = sent.filter((f) => f.session === s);
      expect(frames).toHaveLength(12);
      const first = frames[0].startMs;
      frames.forEach((f, k) => {
        expect(f.startMs).toBe(first + 80 * k); // the cadence keeps its phase
        const dueAt = f.originMs + f.startMs - 80; // sent one frame (the lead) ahead of its play time
        if (k >= 2) {
          expect(f.at).toBeGreaterThanOrEqual(dueAt); // never early
          expect(f.at).toBeLessThan(dueAt + TICK_MS); // late by less than a tick
        }
      });
    }
  });

  it('spreads the sessions over the ticks: a tick sends only the frames that fall in it', () => {
    const { host, sent, pacers } = setup();
    for (let s = 0; s < SESSIONS; s++) {
      host.advance(2);
      pacers[s].pushAudio(`out${s}`, Buffer.alloc(FRAME_BYTES * 12));
    }
    const pushedBy = host.epochMs(); // the first frames go out at once, from pushAudio()
    host.advance(1200);
    const perInstant = new Map<number, number>();
    for (const f of sent) if (f.at > pushedBy) perInstant.set(f.at, (perInstant.get(f.at) ?? 0) + 1);
    // 40 phases over 16 ticks of a frame: at most 3 frames per tick, never everyone's at once.
    expect(Math.max(...perInstant.values())).toBeLessThanOrEqual(Math.ceil(SESSIONS / (80 / TICK_MS)));
  });

  it('a stopped pacer leaves the clock: no timer stays behind', () => {
    const { host, clock, pacers } = setup();
    pacers.forEach((p, s) => p.pushAudio(`out${s}`, Buffer.alloc(FRAME_BYTES * 50)));
    host.advance(100);
    expect(clock.stats().timers).toBe(SESSIONS);
    pacers.forEach((p) => p.stop());
    expect(clock.stats().timers).toBe(0);
    host.advance(100);
    expect(host.pending).toBe(0);
  });
});
