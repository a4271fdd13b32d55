import { describe, expect, it } from '@jest/globals';
import { Domain, Subjects, domainOf } from './subjects.js';

describe('domainOf', () => {
  it('names the domain of every subject in Subjects', () => {
    for (const [group, subjects] of Object.entries(Subjects)) {
      for (const subject of Object.values(subjects)) {
        // A group's key is its domain spelled in camelCase (registryAuth → registry-auth).
        expect(domainOf(subject)).toBe(group.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));
      }
    }
  });

  it('reads the first token only, and knows a domain with no further tokens', () => {
    expect(domainOf('registry-auth.cmd.create')).toBe(Domain.RegistryAuth);
    expect(domainOf('job')).toBe(Domain.Job);
  });

  it('refuses a subject whose first token is no domain', () => {
    expect(() => domainOf('jobs.cmd.submit')).toThrow('unknown domain in subject jobs.cmd.submit');
    expect(() => domainOf('')).toThrow('unknown domain');
    expect(() => domainOf('.job.cmd')).toThrow('unknown domain');
  });
});
