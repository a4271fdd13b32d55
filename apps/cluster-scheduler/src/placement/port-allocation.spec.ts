import { describe, expect, it } from '@jest/globals';
import { allocatePorts, LostRaceError, type HostAddress } from './port-allocation.js';

const hosts = new Map<string, HostAddress>([
  ['h1', { id: 'h1', publicIp: '10.0.0.1', portStart: 40000, portEnd: 40005 }],
  ['h2', { id: 'h2', publicIp: '10.0.0.2', portStart: 50000, portEnd: 50001 }],
]);

describe('allocatePorts', () => {
  it.each([
    {
      name: 'the lowest ports of the range, pod after pod in claim order',
      ports: ['22/tcp', '8888/http'],
      claims: [
        { podId: 'a', hostId: 'h1' },
        { podId: 'b', hostId: 'h1' },
      ],
      used: [],
      expected: { a: { '22/tcp': 40000, '8888/http': 40001 }, b: { '22/tcp': 40002, '8888/http': 40003 } },
    },
    {
      name: 'around the ports the host maps already',
      ports: ['22/tcp'],
      claims: [
        { podId: 'a', hostId: 'h1' },
        { podId: 'b', hostId: 'h1' },
      ],
      used: [
        { hostId: 'h1', port: 40000 },
        { hostId: 'h1', port: 40002 },
        { hostId: 'h2', port: 40001 },
      ],
      expected: { a: { '22/tcp': 40001 }, b: { '22/tcp': 40003 } },
    },
    {
      name: "each host from its own range, whatever the other's claims",
      ports: ['22/tcp'],
      claims: [
        { podId: 'a', hostId: 'h2' },
        { podId: 'b', hostId: 'h1' },
        { podId: 'c', hostId: 'h2' },
      ],
      used: [],
      expected: { a: { '22/tcp': 50000 }, b: { '22/tcp': 40000 }, c: { '22/tcp': 50001 } },
    },
    {
      name: 'nothing when the pods map no port',
      ports: [],
      claims: [{ podId: 'a', hostId: 'h1' }],
      used: [],
      expected: {},
    },
  ])('$name', ({ ports, claims, used, expected }) => {
    expect(Object.fromEntries(allocatePorts(ports, claims, hosts, used))).toEqual(expected);
  });

  it('is a lost race when a range runs out (the last port of the range is still given)', () => {
    const claims = [
      { podId: 'a', hostId: 'h2' },
      { podId: 'b', hostId: 'h2' },
    ];
    expect(Object.fromEntries(allocatePorts(['22/tcp'], claims, hosts, []))).toEqual({
      a: { '22/tcp': 50000 },
      b: { '22/tcp': 50001 },
    });
    expect(() =>
      allocatePorts(['22/tcp', '8888/http'], claims, hosts, [{ hostId: 'h2', port: 50001 }]),
    ).toThrow(new LostRaceError('host h2 has run out of public ports'));
  });
});
