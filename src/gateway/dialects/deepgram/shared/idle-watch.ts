import {
  IdleWatch,
  systemClock,
  type ClockPort,
  type SessionConfig,
  type SessionRuntime,
} from '../../../../session-core';

/** Deepgram ends a socket that sends nothing for 10 s. */
export const LISTEN_IDLE_MS = 10_000;

/**
 * A Deepgram socket's session starts on connect and ends when the client sends no frame at all for
 * `idleMs` (`idle`); a KeepAlive counts, unlike the session core's own rule, which wants audio.
 */
export function startWatchingIdle(
  runtime: SessionRuntime,
  config: SessionConfig,
  clock: ClockPort = systemClock,
  idleMs: number = LISTEN_IDLE_MS,
): IdleWatch {
  runtime.handle({ type: 'start', config, implicit: true });
  const idle = new IdleWatch(clock, idleMs, () => void runtime.end({ kind: 'idle' }));
  void runtime.done.then(() => idle.stop());
  return idle;
}
