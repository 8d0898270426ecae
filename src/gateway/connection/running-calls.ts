import { Injectable } from '@nestjs/common';
import type { SessionRuntime, TransportPort } from '../../session-core';
import type { ClientFrame } from './client-frames';

/** A server's control connection joined to a call (the sideband): fed its socket's frames and its end. */
export interface CallControl {
  onMessage(frame: ClientFrame, isBinary: boolean): void;
  onClose(code: number): void;
}

/** A call whose session runs on this instance, as the sideband finds it. */
export interface RunningCall {
  readonly callId: string;
  readonly sessionId: string;
  readonly projectId: string;
  /** Joins a control connection over `transport` to the call's session; it sees the call's server events from then on. */
  join(transport: TransportPort): CallControl;
}

/**
 * The calls this instance holds, by call id and by session id: filled by the call transports (WebRTC,
 * a carrier's stream) when their session starts, emptied when it ends. A call is held where its media
 * arrives; another instance does not find it here, and relays its sideband to this one (sideband/).
 */
@Injectable()
export class RunningCalls {
  private readonly calls = new Map<string, RunningCall>();

  /** Holds the call until its session is done. */
  add(call: RunningCall, runtime: SessionRuntime): void {
    this.calls.set(call.callId, call);
    this.calls.set(call.sessionId, call);
    void runtime.done.then(() => {
      this.calls.delete(call.callId);
      this.calls.delete(call.sessionId);
    });
  }

  /** By its `rtc_` id or its session id. */
  find(id: string): RunningCall | undefined {
    return this.calls.get(id);
  }
}
