import { describe, expect, it } from '@jest/globals';
import { deriveId } from './ids.js';

const COMMAND = '0b7f6c1e-5d0a-4a39-9a49-2f3d7b1c9e10';

describe('deriveId', () => {
  it('is deterministic: the same command and part give the same id', () => {
    expect(deriveId(COMMAND)).toBe(deriveId(COMMAND));
    expect(deriveId(COMMAND, 'pod/3')).toBe(deriveId(COMMAND, 'pod/3'));
    expect(deriveId(COMMAND, 2, 24)).toBe(deriveId(COMMAND, 2, 24));
  });

  it('gives different ids for different parts of one command', () => {
    const ids = new Set([0, 1, 2, 'a', 'b', 'evt/x/0', 'evt/x/1'].map((part) => deriveId(COMMAND, part)));
    expect(ids.size).toBe(7);
  });

  it('gives different ids for different commands', () => {
    expect(deriveId(COMMAND)).not.toBe(deriveId(`${COMMAND}x`));
    expect(deriveId('a')).not.toBe(deriveId('b'));
  });

  it('uses part 0 by default', () => {
    expect(deriveId(COMMAND)).toBe(deriveId(COMMAND, 0));
  });

  it('is 20 lower-case letters and digits by default', () => {
    const id = deriveId(COMMAND);
    expect(id).toHaveLength(20);
    expect(id).toMatch(/^[a-z0-9]+$/);
  });

  it('honours the requested length', () => {
    for (const length of [1, 8, 24, 32, 40]) {
      const id = deriveId(COMMAND, 'x', length);
      expect(id).toHaveLength(length);
      expect(id).toMatch(/^[a-z0-9]+$/);
    }
  });

  it('shorter ids are prefixes of longer ones', () => {
    expect(deriveId(COMMAND, 1, 24).startsWith(deriveId(COMMAND, 1, 20))).toBe(true);
  });

  it('spreads over the whole alphabet', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) for (const c of deriveId(`cmd-${i}`)) seen.add(c);
    expect(seen.size).toBe(36);
  });

  it('derives exactly the ids it always did: recorded histories replay to the same ids', () => {
    expect(deriveId(COMMAND)).toBe('fop54b1kcb0jtkt1dhz4');
    expect(deriveId(COMMAND, 'pod/249')).toBe('5vqlvbkz8cfe6y69y22m');
    expect(deriveId(COMMAND, 'evt/job.evt.changed/0', 24)).toBe('v6xpqt9tu163l4c170yig1ef');
    expect(deriveId(COMMAND, 'x', 40)).toBe('axpdkd6wksaoaqzh8satks8l1mhemht3axpdkd6w');
  });
});
