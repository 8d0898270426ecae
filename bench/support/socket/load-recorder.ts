/**
 * What one benchmark step observed on the client side: latency samples of the probe frames sent
 * inside the measurement window, output pacing, and everything that went wrong.
 */
import { distribution, type Distribution } from '../stats';
import { PROBES, type Probe } from './script';

export interface LoadObservation {
  /** Probe frame → its event, all probes together, ms. */
  latencyMs: Distribution;
  byProbe: Record<Probe, Distribution>;
  /** How late each later output frame of a reply arrived against the pacing schedule, ms. */
  outputLatenessMs: Distribution;
  /** How late the load generator sent frames against their schedule, ms. */
  sendLatenessMs: Distribution;
  /** Input frames sent inside the window (the CPU-per-frame denominator). */
  framesSent: number;
  outputFrames: number;
  /** Probe frames sent in the window whose event never came. */
  missing: number;
  /** Probe events that matched no probe frame (an engine that answered elsewhere), by kind. */
  unexpected: number;
  unexpectedKinds: Record<string, number>;
  errors: number;
  warnings: number;
  interruptedResponses: number;
  droppedSockets: number;
  firstError: string | null;
}

export class LoadRecorder {
  private windowFrom = Number.POSITIVE_INFINITY;
  private windowTo = Number.POSITIVE_INFINITY;
  private readonly samples: Record<Probe, number[]> = { speech_started: [], input_word: [], first_output: [] };
  private readonly outputLate: number[] = [];
  private readonly sendLate: number[] = [];
  framesSent = 0;
  outputFrames = 0;
  missing = 0;
  unexpected = 0;
  readonly unexpectedKinds: Record<string, number> = {};
  errors = 0;
  warnings = 0;
  interruptedResponses = 0;
  droppedSockets = 0;
  firstError: string | null = null;

  open(from: number, to: number): void {
    this.windowFrom = from;
    this.windowTo = to;
  }

  inWindow(at: number): boolean {
    return at >= this.windowFrom && at < this.windowTo;
  }

  sent(at: number, lateMs: number): void {
    if (!this.inWindow(at)) return;
    this.framesSent++;
    this.sendLate.push(lateMs);
  }

  probe(probe: Probe, sentAt: number, receivedAt: number): void {
    if (this.inWindow(sentAt)) this.samples[probe].push(receivedAt - sentAt);
  }

  output(receivedAt: number, lateMs: number | null): void {
    if (!this.inWindow(receivedAt)) return;
    this.outputFrames++;
    if (lateMs !== null) this.outputLate.push(lateMs);
  }

  surprise(kind: string): void {
    this.unexpected++;
    this.unexpectedKinds[kind] = (this.unexpectedKinds[kind] ?? 0) + 1;
  }

  lost(sentAt: number): void {
    if (this.inWindow(sentAt)) this.missing++;
  }

  error(text: string): void {
    this.errors++;
    this.firstError ??= text;
  }

  summary(): LoadObservation {
    const byProbe = Object.fromEntries(PROBES.map((p) => [p, distribution(this.samples[p])])) as Record<
      Probe,
      Distribution
    >;
    return {
      latencyMs: distribution(PROBES.flatMap((p) => this.samples[p])),
      byProbe,
      outputLatenessMs: distribution(this.outputLate),
      sendLatenessMs: distribution(this.sendLate),
      framesSent: this.framesSent,
      outputFrames: this.outputFrames,
      missing: this.missing,
      unexpected: this.unexpected,
      unexpectedKinds: this.unexpectedKinds,
      errors: this.errors,
      warnings: this.warnings,
      interruptedResponses: this.interruptedResponses,
      droppedSockets: this.droppedSockets,
      firstError: this.firstError,
    };
  }
}
