import { ThrottleMemory } from './throttle-memory';

describe('ThrottleMemory', () => {
  it('holds an address blocked until its bucket has a token again, then forgets it', () => {
    const memory = new ThrottleMemory();
    memory.block('10.0.0.1', 2_000, 1_000);
    expect(memory.blockedFor('10.0.0.1', 1_500)).toBe(1_500);
    expect(memory.blockedFor('10.0.0.2', 1_500)).toBe(0);
    expect(memory.blockedFor(undefined, 1_500)).toBe(0);
    expect(memory.blockedFor('10.0.0.1', 3_000)).toBe(0);
    expect(memory.blockedFor('10.0.0.1', 1_500)).toBe(0); // forgotten once it lapsed
  });

  it('stays bounded under a flood of addresses: lapsed blocks go first, then the oldest', () => {
    const memory = new ThrottleMemory();
    memory.block('lapsed', 10, 0);
    memory.block('first', 1_000_000, 0);
    for (let i = 0; i < 50_000; i++) memory.block(`flood-${i}`, 1_000_000, 100);
    expect(memory.blockedFor('lapsed', 100)).toBe(0);
    expect(memory.blockedFor('first', 100)).toBe(0);
    expect(memory.blockedFor('flood-1', 100)).toBeGreaterThan(0);
    expect(memory.blockedFor('flood-49999', 100)).toBeGreaterThan(0);
  });

  it('remembers served keys up to its bound, oldest forgotten first, and forgets a revoked one', () => {
    const memory = new ThrottleMemory();
    for (let i = 0; i <= 50_000; i++) memory.noteServed(`key-${i}`);
    expect(memory.served('key-0')).toBe(false);
    expect(memory.served('key-1')).toBe(true);
    expect(memory.served('key-50000')).toBe(true);
    memory.forgetServed('key-1');
    expect(memory.served('key-1')).toBe(false);
  });

  it('remembers credentials refused for good, up to its bound', () => {
    const memory = new ThrottleMemory();
    expect(memory.refused('spent')).toBe(false);
    memory.noteRefused('spent');
    expect(memory.refused('spent')).toBe(true);
    for (let i = 0; i < 50_000; i++) memory.noteRefused(`flood-${i}`);
    expect(memory.refused('spent')).toBe(false);
    expect(memory.refused('flood-49999')).toBe(true);
  });
});
