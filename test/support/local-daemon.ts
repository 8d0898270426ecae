/**
 * Local servers a test starts from Debian's packages (PgBouncer, coturn, nginx): a free port to give
 * them, and a process whose output is kept and that counts as started once its TCP port accepts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface LocalDaemon {
  readonly child: ChildProcess;
  /** What it wrote (stdout and stderr) so far. */
  output(): string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** Spawns `binary` and waits (10 s at most) until 127.0.0.1:`port` accepts; killed and thrown with its output if not. */
export async function startLocalDaemon(
  name: string,
  binary: string,
  args: string[],
  port: number,
): Promise<LocalDaemon> {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not start: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, output: () => output, exited };
}
