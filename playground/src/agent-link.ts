/** What agent mode needs of its connection, whichever carries it (a WebRTC call, or the socket fallback). */
export interface AgentEvent {
  type: string;
  [key: string]: unknown;
}

export interface ClockTool {
  readonly description: string;
  run(): { time: string };
}

export interface AgentOptions {
  readonly secret: string;
  readonly model: string;
  readonly instructions: string;
  readonly clock: ClockTool;
  readonly context: AudioContext;
  readonly useMicrophone: boolean;
  /** Every server event, as the Realtime API names it. */
  readonly onEvent: (event: AgentEvent) => void;
}

export interface AgentLink {
  readonly transport: 'webrtc' | 'websocket';
  /** The call id (`rtc_…`) or the session id. */
  readonly id: string;
  say(text: string): void;
  /** Peak level (0..1) of the agent's voice as it plays now. */
  level(): number;
  close(): Promise<void>;
  /** Resolves with how the connection ended, in words. */
  readonly closed: Promise<string>;
}
