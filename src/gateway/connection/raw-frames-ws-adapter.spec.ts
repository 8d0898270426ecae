import { EventEmitter } from 'node:events';
import { of } from 'rxjs';
import { RawFramesWsAdapter } from './raw-frames-ws-adapter';

describe('RawFramesWsAdapter', () => {
  const adapter = new RawFramesWsAdapter(undefined as never);

  it('binds nothing to a socket whose gateway has no message handlers', () => {
    const socket = new EventEmitter();
    adapter.bindMessageHandlers(socket, [], (data) => of(data));
    expect(socket.listenerCount('message')).toBe(0);
    expect(socket.listenerCount('close')).toBe(0);
  });

  it('still binds a gateway that has handlers, without parsing frames as JSON', () => {
    const socket = new EventEmitter();
    const callback = jest.fn();
    adapter.bindMessageHandlers(
      socket,
      [{ message: 'x', methodName: 'x', callback, isAckHandledManually: false }],
      (data) => of(data),
    );
    expect(socket.listenerCount('message')).toBe(1);
    socket.emit('message', Buffer.from('{"event":"x","data":1}'), false);
    expect(callback).not.toHaveBeenCalled();
  });
});
