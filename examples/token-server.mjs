// A token server: your backend keeps the API key and hands browsers a one-use client secret.
// Usage: BASE_URL=http://localhost:8080 API_KEY=wk_… PORT=3000 node examples/token-server.mjs
// The browser: const { value, live_url } = await (await fetch('/session', { method: 'POST' })).json();
//              const socket = new WebSocket(`${live_url}?token=${encodeURIComponent(value)}`);
import { createServer } from 'node:http';

const { BASE_URL = 'http://localhost:8080', API_KEY, PORT = '3000' } = process.env;

const server = createServer(async (req, res) => {
  if (req.method !== 'POST' || req.url !== '/session') return res.writeHead(404).end();
  // Authenticate your own user here: each secret spends your credit.
  try {
    const answer = await fetch(`${BASE_URL}/v1/live/client_secrets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ expires_after: { seconds: 60 }, session: { model: 'vendor-voicechat' } }),
    });
    const body = await answer.json();
    const reply = answer.ok
      ? { value: body.value, expires_at: body.expires_at, live_url: body.session.live_url }
      : body;
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
  } catch {
    res.writeHead(502).end();
  }
});
server.listen(Number(PORT), () => console.log(`POST http://localhost:${server.address().port}/session`));
