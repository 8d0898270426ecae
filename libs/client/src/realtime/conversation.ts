/**
 * A voice agent over `/v1/realtime` (OpenAI's Realtime conversation events, GA names), opened with a
 * client secret as a browser opens it: the secret in the `openai-insecure-api-key.` subprotocol, never
 * an API key. Function tools run in the caller's process: a completed `function_call` item is answered
 * with its output and a new response, after the current response is done (one response at a time).
 */
import { base64ToSamples, bytesToBase64, samplesToBytes, type Pcm16, toSamples } from '../live/pcm.js';
import type { WebSocketLike } from '../live/live-session.js';
import type { WebSocketConstructor } from '../live/connect.js';

/** A function the model may call; `run` gets the parsed arguments and returns the output it is told. */
export interface ConversationTool {
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  run(args: Record<string, unknown>): unknown;
}

export interface ConversationOptions {
  /** The service's origin (`https://…`); the socket is `/v1/realtime?model=…` on it. */
  baseUrl: string;
  /** `value` of `POST /v1/realtime/client_secrets` with `session.type: "realtime"`. */
  clientSecret: string;
  model?: string;
  instructions?: string;
  tools?: Record<string, ConversationTool>;
  /** `['audio']` (spoken answers with their transcript, the default) or `['text']`. */
  outputModalities?: ('audio' | 'text')[];
  WebSocket?: WebSocketConstructor;
}

/** A server event: OpenAI's shape, `type` first. */
export interface ConversationEvent {
  type: string;
  [field: string]: unknown;
}

interface FunctionCallItem {
  type: 'function_call';
  status?: string;
  name: string;
  call_id: string;
  arguments: string;
}

type Listener = (event: ConversationEvent) => void;

export class ConversationError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
    this.name = 'ConversationError';
  }
}

/** Opens the socket and configures the session (instructions, tools); resolves once the session is updated. */
export async function connectConversation(options: ConversationOptions): Promise<Conversation> {
  if (!options.clientSecret.startsWith('ek_')) {
    throw new Error('connectConversation takes a client secret (ek_…), never an API key');
  }
  const Ctor = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (!Ctor) throw new Error('no WebSocket implementation: pass one (e.g. the ws package)');
  const url = new URL('/v1/realtime', options.baseUrl.replace(/^http/, 'ws'));
  url.searchParams.set('model', options.model ?? 'vendor-voicechat');
  const socket = new Ctor(url.toString(), ['realtime', `openai-insecure-api-key.${options.clientSecret}`]);
  const conversation = new Conversation(socket, options.tools ?? {});
  await conversation.configure(options);
  return conversation;
}

export class Conversation {
  /** Resolves when the socket has closed, with its close code. */
  readonly closed: Promise<number>;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly opened: Promise<void>;
  /** A response is running, or was asked for and not yet refused. */
  private responding = false;
  /** Tool outputs sent while a response ran: their response is asked for when it is done. */
  private responseOwed = false;
  private requests = 0;

  constructor(
    private readonly socket: WebSocketLike,
    private readonly tools: Record<string, ConversationTool>,
  ) {
    this.opened = new Promise((resolve, reject) => {
      socket.addEventListener('open', () => resolve());
      socket.addEventListener('error', () => reject(new ConversationError('the socket failed to open', null)));
    });
    this.closed = new Promise((resolve) => {
      socket.addEventListener('close', (event: { code: number }) => resolve(event.code));
    });
    socket.addEventListener('message', (message: { data: unknown }) => {
      if (typeof message.data === 'string') this.receive(JSON.parse(message.data) as ConversationEvent);
    });
  }

  /** `'*'` hears every event. */
  on(type: string, listener: Listener): () => void {
    const set = this.listeners.get(type) ?? new Set<Listener>();
    set.add(listener);
    this.listeners.set(type, set);
    return () => set.delete(listener);
  }

  /** The next event of `type` (or matching `predicate`). */
  next(type: string, predicate: (event: ConversationEvent) => boolean = () => true): Promise<ConversationEvent> {
    return new Promise((resolve) => {
      const off = this.on(type, (event) => {
        if (!predicate(event)) return;
        off();
        resolve(event);
      });
    });
  }

  async configure(options: Omit<ConversationOptions, 'baseUrl' | 'clientSecret' | 'WebSocket'>): Promise<void> {
    await this.opened;
    const tools = Object.entries(this.tools).map(([name, tool]) => ({
      type: 'function',
      name,
      description: tool.description,
      parameters: tool.parameters,
    }));
    const updated = this.next('session.updated');
    const refused = this.next('error');
    this.send({
      type: 'session.update',
      event_id: 'client_configure',
      session: {
        type: 'realtime',
        ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
        ...(tools.length === 0 ? {} : { tools, tool_choice: 'auto' }),
        output_modalities: options.outputModalities ?? ['audio'],
      },
    });
    const answer = await Promise.race([updated, refused]);
    if (answer.type === 'error') {
      const error = answer.error as { message: string; code: string | null };
      throw new ConversationError(error.message, error.code);
    }
  }

  /** pcm16 at 24 kHz mono, any length. */
  sendAudio(audio: Pcm16): void {
    this.send({ type: 'input_audio_buffer.append', audio: bytesToBase64(samplesToBytes(toSamples(audio))) });
  }

  /** A typed user message, answered by a new response. */
  say(text: string): void {
    this.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
    });
    this.requestResponse();
  }

  /** Output audio of `response.output_audio.delta` as samples. */
  static audioOf(event: ConversationEvent): Int16Array {
    return base64ToSamples(String(event.delta));
  }

  close(): Promise<number> {
    this.socket.close(1000);
    return this.closed;
  }

  private receive(event: ConversationEvent): void {
    if (event.type === 'response.created') this.responding = true;
    if (
      event.type === 'error' &&
      String((event.error as { event_id?: unknown }).event_id).startsWith('client_response_')
    ) {
      this.responding = false;
    }
    if (event.type === 'response.output_item.done') void this.runTool(event.item as FunctionCallItem);
    for (const listener of [...(this.listeners.get(event.type) ?? []), ...(this.listeners.get('*') ?? [])]) {
      listener(event);
    }
    if (event.type === 'response.done') {
      this.responding = false;
      if (this.responseOwed) this.requestResponse();
    }
  }

  private async runTool(item: FunctionCallItem): Promise<void> {
    if (item.type !== 'function_call' || item.status !== 'completed') return;
    const tool = this.tools[item.name];
    let output: unknown;
    try {
      if (!tool) throw new Error(`no tool named ${item.name}`);
      output = await tool.run(JSON.parse(item.arguments || '{}') as Record<string, unknown>);
    } catch (error) {
      output = { error: error instanceof Error ? error.message : String(error) };
    }
    this.send({
      type: 'conversation.item.create',
      item: {
        type: 'function_call_output',
        call_id: item.call_id,
        output: typeof output === 'string' ? output : JSON.stringify(output),
      },
    });
    this.requestResponse();
  }

  private requestResponse(): void {
    if (this.responding) {
      this.responseOwed = true;
      return;
    }
    this.responding = true;
    this.responseOwed = false;
    this.send({ type: 'response.create', event_id: `client_response_${++this.requests}` });
  }

  private send(event: object): void {
    if (this.socket.readyState === 1) this.socket.send(JSON.stringify(event));
  }
}
