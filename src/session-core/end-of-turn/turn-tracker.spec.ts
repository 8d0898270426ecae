import { TurnTracker, type TurnDecision } from './turn-tracker';

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
