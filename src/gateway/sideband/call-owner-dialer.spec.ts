import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { AppConfig } from '../../config/app-config';
import { AppError } from '../../platform/errors/app-error';
import { InstanceIdentity } from '../connection/instance-identity';
import { CallOwnerDialer, RELAYED_BY_HEADER } from './call-owner-dialer';

/** The dialer against a real HTTP server standing for the owner: its upgrade accepted or refused. */
describe('CallOwnerDialer', () => {
  let server: Server;
  let upgrades: IncomingMessage[];
  let refuse: { status: number; body: string } | null;
  const instance = new InstanceIdentity();
  const dialer = new CallOwnerDialer(new AppConfig({}), instance);
  const owner = (url: string) => ({ callId: 'rtc_abc', instanceId: 'owner-1', url });
  const urlOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

  beforeEach(async () => {
    upgrades = [];
    refuse = null;
    server = createServer();
    const wss = new WebSocketServer({ noServer: true });
    server.on('upgrade', (req, socket, head) => {
      upgrades.push(req);
      if (refuse === null) return wss.handleUpgrade(req, socket, head, (ws) => ws.send('{"type":"hello"}'));
      socket.end(
        `HTTP/1.1 ${refuse.status} Refused\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(refuse.body)}\r\n\r\n${refuse.body}`,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("opens the same sideband on the owner with the client's credential, marked relayed, and hands it over paused", async () => {
    const ws = await dialer.dial(owner(urlOf(server)), '/v1/realtime?call_id=rtc_abc', 'wk_key');
    expect(upgrades[0].url).toBe('/v1/realtime?call_id=rtc_abc');
    expect(upgrades[0].headers.authorization).toBe('Bearer wk_key');
    expect(upgrades[0].headers[RELAYED_BY_HEADER]).toBe(instance.id);
    expect(ws.isPaused).toBe(true);
    const first = new Promise((resolve) => ws.once('message', (data) => resolve(data.toString())));
    ws.resume();
    expect(await first).toBe('{"type":"hello"}');
    ws.close();
  });

  it("answers the owner's refusal as its own: same code, message and param", async () => {
    refuse = {
      status: 404,
      body: JSON.stringify({
        error: { code: 'not_found', message: 'No running call rtc_abc', param: 'call_id', request_id: 'req_1' },
      }),
    };
    const refusal = await dialer.dial(owner(urlOf(server)), '/v1/realtime?call_id=rtc_abc', 'wk_key').catch((e) => e);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: 'not_found', message: 'No running call rtc_abc', param: 'call_id' });
  });

  it('answers 503 call_unreachable for an owner that answers something else, or nothing', async () => {
    refuse = { status: 502, body: '<html>bad gateway</html>' };
    const odd = await dialer.dial(owner(urlOf(server)), '/v1/realtime?call_id=rtc_abc', 'wk_key').catch((e) => e);
    expect(odd).toMatchObject({ code: 'call_unreachable', status: 503 });
    expect(odd.message).toMatch(/answered 502/);

    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const url = urlOf(gone);
    await new Promise((resolve) => gone.close(resolve));
    const refused = await dialer.dial(owner(url), '/v1/realtime?call_id=rtc_abc', 'wk_key').catch((e) => e);
    expect(refused).toMatchObject({ code: 'call_unreachable', retryAfterMs: 1000 });
    expect(refused.message).toMatch(/ECONNREFUSED/);
    expect(refused.message).not.toMatch(/wk_key/);
  });
});
