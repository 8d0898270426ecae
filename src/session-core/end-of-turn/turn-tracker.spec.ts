import { COMPLETE_TURN_CAP_MS, TurnTracker, WEAK_TURN_CAP_MS, type TurnDecision } from './turn-tracker';

const kinds = (decisions: TurnDecision[]) => decisions.map((d) => (d.kind === 'end' ? `end:${d.trigger}` : d.kind));

/** Feeds 32 ms progress frames: `voicedUntil` ms of speech then silence, up to `untilMs`. */
function run(tracker: TurnTracker, hypothesis: string, voicedUntil: number, fromMs: number, untilMs: number): string[] {
  const out: string[] = [];
  for (let ms = fromMs; ms <= untilMs; ms += 32) {
    out.push(...kinds(tracker.progress('item_1', ms, Math.max(0, ms - voicedUntil), hypothesis)));
  }
  return out;
}

describe('TurnTracker', () => {
  const settings = { eotThreshold: 0.7, eagerEotThreshold: null, eotTimeoutMs: 5000 };

  it('updates every 250 ms of audio and ends a finished sentence on the model', () => {
    const tracker = new TurnTracker(settings);
    tracker.started('item_1', 0);
    const out = run(tracker, 'what time is it', 1000, 32, 1600);
    expect(out.filter((k) => k === 'update')).toHaveLength(4);
    expect(out.filter((k) => k.startsWith('end'))).toEqual(['end:model']);
    expect(out).not.toContain('eager');
    expect(tracker.finish('item_1', false)).toMatchObject({ trigger: 'model', eager: false });
    expect(tracker.open).toBe(false);
  });

  it('in eager mode announces the end early, resumes when speech returns, and ends once', () => {
    const tracker = new TurnTracker({ ...settings, eotThreshold: 0.95, eagerEotThreshold: 0.3 });
    tracker.started('item_1', 0);
    // A 250 ms pause: eager once its silence is long enough, but no end before speech returns.
    const pause = run(tracker, 'i would like a pizza', 1000, 32, 1248);
    const resumed = run(tracker, 'i would like a pizza', 1500, 1280, 1500).concat(
      run(tracker, 'i would like a pizza please', 1500, 1504, 2200),
    );
    expect(pause.filter((k) => k !== 'update')).toEqual(['eager']);
    expect(resumed.filter((k) => k !== 'update')).toEqual(['resumed', 'eager', 'end:model']);
  });

  it('ends on the timeout when the words never allow it, and only ForceEndTurn ends at threshold 1', () => {
    const tracker = new TurnTracker({ ...settings, eotTimeoutMs: 600 });
    tracker.started('item_1', 0);
    expect(run(tracker, 'i went and', 500, 32, 1200).filter((k) => k !== 'update')).toEqual(['end:timeout']);

    const manual = new TurnTracker({ ...settings, eotThreshold: 1 });
    manual.started('item_1', 0);
    expect(run(manual, 'hello there', 200, 32, 3000).filter((k) => k !== 'update')).toEqual([]);
    expect(manual.endNow()).toMatchObject({ kind: 'end', trigger: 'manual' });
    expect(manual.finish('item_1', true).trigger).toBe('manual');
  });

  it('does nothing without settings or for another item', () => {
    const off = new TurnTracker(null);
    off.started('item_1', 0);
    expect(run(off, 'hello', 100, 32, 1000)).toEqual([]);
    const tracker = new TurnTracker(settings);
    tracker.started('item_2', 0);
    expect(run(tracker, 'hello', 100, 32, 1000)).toEqual([]);
    expect(tracker.finish('item_9', true).trigger).toBe('manual');
  });
});

/**
 * The end-of-turn rule: a turn that sounds complete ends once COMPLETE_TURN_CAP_MS of silence has
 * passed since the last voiced sample, whatever the recogniser does; audio time decides, so the same
 * audio ends at the same point however its reports were batched.
 */
describe('TurnTracker: never later than a timer', () => {
  const settings = { eotThreshold: 0.7, eagerEotThreshold: 0.4, eotTimeoutMs: 5000 };
  interface Frame {
    audioMs: number;
    silenceMs: number;
    hypothesis: string;
    final: boolean;
  }
  /** Plays frames; returns the silence (since the last voiced sample) at the end decision (null: none). */
  const endAt = (frames: Frame[]): { endMs: number | null; kinds: string[] } => {
    const tracker = new TurnTracker(settings);
    tracker.started('item_1', 0);
    const seen: string[] = [];
    for (const f of frames) {
      for (const d of tracker.progress('item_1', f.audioMs, f.silenceMs, f.hypothesis, f.audioMs, f.final)) {
        seen.push(d.kind);
        if (d.kind === 'end') return { endMs: f.silenceMs, kinds: seen };
      }
    }
    return { endMs: null, kinds: seen };
  };
  /** 32 ms frames; voice until `voiceEndMs`; the hypothesis and finality at each frame from `words`. */
  const frames = (
    voiceEndMs: number,
    untilMs: number,
    words: (ms: number) => { hypothesis: string; final: boolean },
    firstMs = 32,
  ): Frame[] => {
    const out: Frame[] = [];
    for (let ms = firstMs; ms <= untilMs; ms += 32)
      out.push({ audioMs: ms, silenceMs: Math.max(0, ms - voiceEndMs), ...words(ms) });
    return out;
  };

  it('a last word that keeps flipping after the speech delays the end up to the cap, not past it', () => {
    // Partial words only: "light" / "lie" / "like" alternate every two frames for as long as the
    // recogniser likes; the stability and partial terms hold the model's confidence down.
    const flips = ['turn on the kitchen light', 'turn on the kitchen lie', 'turn on the kitchen like'];
    const flipping = endAt(frames(1000, 3000, (ms) => ({ hypothesis: flips[Math.floor(ms / 64) % 3], final: false })));
    expect(flipping.endMs).not.toBeNull();
    expect(flipping.endMs!).toBeGreaterThanOrEqual(COMPLETE_TURN_CAP_MS);
    expect(flipping.endMs!).toBeLessThan(COMPLETE_TURN_CAP_MS + 32);
    expect(flipping.kinds).toContain('eager');
    // Without the flips the model alone ends it sooner.
    const steady = endAt(frames(1000, 3000, () => ({ hypothesis: 'turn on the kitchen light', final: true })));
    expect(steady.endMs!).toBeLessThan(flipping.endMs!);
    expect(steady.endMs!).toBeLessThan(300);
  });

  it('a turn that sounds unfinished may still wait past the cap, on its words, not on the flips', () => {
    const unfinished = endAt(
      frames(1000, 3000, (ms) => ({
        hypothesis: ms % 64 === 0 ? 'i would like to order a pizza and' : 'i would like to order a pizza an',
        final: false,
      })),
    );
    // At the cap the words stop on "and" (the frame at 1416 ms is a multiple of 64): no end there.
    expect(unfinished.endMs === null || unfinished.endMs > COMPLETE_TURN_CAP_MS + 32).toBe(true);
    const held = endAt(frames(1000, 3000, () => ({ hypothesis: 'i would like to order a pizza and', final: true })));
    expect(held.endMs!).toBeGreaterThan(600);
  });

  it('a turn that stops on a weak continuation waits longer than a complete one, but churn cannot hold it past its cap', () => {
    // "yes we can" / "yes we could": a turn can end there, but seldom does; the partial hypothesis
    // keeps changing between the two and never becomes final.
    const churning = endAt(
      frames(1000, 3000, (ms) => ({ hypothesis: ms % 64 === 0 ? 'yes we can' : 'yes we could', final: false })),
    );
    expect(churning.endMs).not.toBeNull();
    expect(churning.endMs!).toBeGreaterThanOrEqual(WEAK_TURN_CAP_MS);
    expect(churning.endMs!).toBeLessThan(WEAK_TURN_CAP_MS + 32);
    // Once the words are final the model reaches about the same point on its own.
    const settled = endAt(frames(1000, 3000, () => ({ hypothesis: 'yes we can', final: true })));
    expect(settled.endMs!).toBeGreaterThan(COMPLETE_TURN_CAP_MS);
    expect(settled.endMs!).toBeLessThan(WEAK_TURN_CAP_MS + 32);
  });

  it('a long final vowel: the silence counts from its end, so the end keeps its distance from the voice', () => {
    // The last word grows while the vowel lasts ("lie" → "light"), then the voice stops.
    const words = (voiceEndMs: number) => (ms: number) =>
      ms < voiceEndMs - 300
        ? { hypothesis: 'please turn on the kitchen', final: false }
        : ms < voiceEndMs + 160
          ? { hypothesis: 'please turn on the kitchen lie', final: false }
          : { hypothesis: 'please turn on the kitchen light', final: true };
    const short = endAt(frames(1000, 3000, words(1000)));
    const long = endAt(frames(1600, 3600, words(1600)));
    expect(short.endMs).not.toBeNull();
    // The same distance, to within the 32 ms frame grid (the voice ends at another frame phase).
    expect(Math.abs(long.endMs! - short.endMs!)).toBeLessThan(32);
    expect(long.endMs!).toBeLessThanOrEqual(COMPLETE_TURN_CAP_MS);
  });

  it('a trailing breath the recogniser hears as words delays the end, but no further than the cap', () => {
    // After the speech a breath: the VAD does not call it voice (the silence keeps counting), but the
    // partial hypothesis picks up a word from it and drops it again, twice.
    const breath = endAt(
      frames(1000, 3000, (ms) =>
        ms < 1200
          ? { hypothesis: 'what time is it', final: false }
          : ms < 1380
            ? { hypothesis: ms % 64 === 0 ? 'what time is it hat' : 'what time is it', final: false }
            : { hypothesis: 'what time is it', final: true },
      ),
    );
    expect(breath.endMs).not.toBeNull();
    expect(breath.endMs!).toBeLessThanOrEqual(COMPLETE_TURN_CAP_MS + 32);
  });

  it('the same audio batched differently (different partial histories, the same final words) ends at the same point', () => {
    const final = 'please schedule a meeting for tomorrow morning';
    // One batching saw the final words' last word early; the other kept a wrong partial until the
    // recogniser closed its utterance at 160 ms of silence.
    const early = endAt(frames(1000, 3000, (ms) => ({ hypothesis: final, final: ms >= 1160 })));
    const late = endAt(
      frames(1000, 3000, (ms) =>
        ms < 1160
          ? { hypothesis: 'please schedule a meeting for tomorrow mourning', final: false }
          : { hypothesis: final, final: true },
      ),
    );
    // And a third whose reports start at another frame phase (a different lead-in).
    const shifted = endAt(frames(1010, 3010, (ms) => ({ hypothesis: final, final: ms >= 1170 }), 42));
    expect(early.endMs).not.toBeNull();
    expect(late.endMs).toBe(early.endMs);
    expect(Math.abs(shifted.endMs! - early.endMs!)).toBeLessThanOrEqual(40);
  });
});
