import { OutputTail, logLevelOf, parseReadyLine } from './embedded-postgres.output';

describe('parseReadyLine', () => {
  it('reads the host ready line', () => {
    const line = '{"event":"ready","host":"127.0.0.1","port":41234,"pid":99,"created":true,"startupMs":512}';
    expect(parseReadyLine(line)).toEqual({
      event: 'ready',
      host: '127.0.0.1',
      port: 41234,
      pid: 99,
      created: true,
      startupMs: 512,
    });
  });

  it.each([
    ['not JSON', 'PostgreSQL stand-alone backend 18.6'],
    ['another event', '{"event":"stopping","host":"127.0.0.1","port":1,"pid":1,"created":false,"startupMs":1}'],
    ['a missing port', '{"event":"ready","host":"127.0.0.1","pid":1,"created":false,"startupMs":1}'],
    ['a port given as text', '{"event":"ready","host":"127.0.0.1","port":"1","pid":1,"created":false,"startupMs":1}'],
    ['JSON null', 'null'],
  ])('ignores %s', (_case, line) => {
    expect(parseReadyLine(line)).toBeUndefined();
  });
});

describe('logLevelOf', () => {
  it.each([
    ['pglite-host [info] shutting down (SIGTERM)', 'info'],
    ['pglite-host [error] data directory is in use by process 7', 'error'],
    ['2026-11-21 05:34:21.301 UTC [42] WARNING:  hello', 'warn'],
    ['2026-11-21 05:34:21.301 UTC [42] FATAL:  could not open file', 'error'],
    ['2026-11-21 05:34:21.301 UTC [42] PANIC:  could not write', 'error'],
    // A client's failed query is the client's business, not a server problem.
    ['2026-11-21 05:34:21.266 UTC [42] ERROR:  relation "nope" does not exist', 'debug'],
    ['2026-11-21 05:34:21.311 UTC [42] LOG:  database system is shut down', 'debug'],
    ['PostgreSQL stand-alone backend 18.6', 'debug'],
  ])('%s -> %s', (line, level) => {
    expect(logLevelOf(line)).toBe(level);
  });
});

describe('OutputTail', () => {
  it('keeps only the last lines', () => {
    const tail = new OutputTail(2);
    for (const line of ['a', 'b', 'c']) tail.push(line);
    expect(tail.toString()).toBe('b\nc');
  });

  it('says when there was no output', () => {
    expect(new OutputTail().toString()).toBe('(no output)');
  });
});
