import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** What a tool answered: the JSON it put in its text content, and whether it flagged the call as failed. */
export interface ToolAnswer<T> {
  isError: boolean;
  payload: T;
}

export interface McpSession {
  /** Calls a tool; failures come back as answers (`isError`), as an agent would see them. */
  call<T = Record<string, unknown>>(tool: string, args?: Record<string, unknown>): Promise<ToolAnswer<T>>;
  /** Calls a tool that must succeed, and returns its payload. */
  ok<T = Record<string, unknown>>(tool: string, args?: Record<string, unknown>): Promise<T>;
  toolNames(): Promise<string[]>;
  /** Every tool called so far in this session, whatever it answered. */
  called(): ReadonlySet<string>;
  /** Everything the server wrote to stderr (its `tool_call` lines, and the loopback guard's refusals). */
  stderr(): string;
  close(): Promise<void>;
}

/** Written to stderr by the guard below when the server tries to reach anything but 127.0.0.1. */
export const REFUSED_MARK = '[loopback-only] refused';

/**
 * Preloaded into the server (`--import`): every fetch to a host other than 127.0.0.1 fails at once and is named
 * on stderr. The server makes every call with the global fetch (its SDK, runtime and GraphQL clients, and the
 * analytics capture), so a test that finds no mark proves it never tried to reach the internet.
 */
const LOOPBACK_ONLY = `
const original = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.hostname !== '127.0.0.1') {
    process.stderr.write('${REFUSED_MARK} ' + url.origin + '\\n');
    return Promise.reject(new TypeError('refused by the test: not loopback'));
  }
  return original(input, init);
};`;

/** The server's own entry point, as `npx @runpod/mcp-server` runs it (its package.json `bin`). */
function serverScript(): string {
  const manifest = createRequire(import.meta.url).resolve('@runpod/mcp-server/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(manifest), bin['runpod-mcp']);
}

/**
 * Starts the published MCP server `@runpod/mcp-server` over stdio, pointed at a gateway by the variables it reads
 * (node_modules/@runpod/mcp-server/dist/chunk-*.mjs): RUNPOD_API_BASE_URL is the origin, the server adds `/v2/…`
 * itself; the job routes hang under RUNPOD_SERVERLESS_API_URL; both GraphQL URLs are the gateway's /graphql, the
 * public one (which the server calls without a key) with the key as `?api_key=`, as docs/api.md says to set it.
 * Analytics: the stdio server never enables them, and the capture sends only with POSTHOG_API_KEY set; it gets
 * none (the transport passes on only HOME, LOGNAME, PATH, SHELL, TERM and USER from this process), and a loopback
 * discard address as POSTHOG_HOST in case a later version changes that.
 */
export async function startMcpServer(gateway: string, apiKey: string): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', `data:text/javascript,${encodeURIComponent(LOOPBACK_ONLY)}`, serverScript()],
    env: {
      RUNPOD_API_KEY: apiKey,
      RUNPOD_API_BASE_URL: gateway,
      RUNPOD_SERVERLESS_API_URL: `${gateway}/v2`,
      RUNPOD_AUTHED_GRAPHQL_URL: `${gateway}/graphql`,
      RUNPOD_PUBLIC_GRAPHQL_URL: `${gateway}/graphql?api_key=${apiKey}`,
      POSTHOG_API_KEY: '',
      POSTHOG_HOST: 'http://127.0.0.1:9',
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'gpucp-e2e', version: '1.0.0' });
  await client.connect(transport);

  const called = new Set<string>();
  const call = async <T>(tool: string, args: Record<string, unknown> = {}): Promise<ToolAnswer<T>> => {
    called.add(tool);
    // Above the longest hold a tool is asked for here (runsync, get-job-status), below jest's 60 s.
    const result = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 55_000 });
    const content = result.content as { type: string; text?: string }[];
    const text = content.find((c) => c.type === 'text')?.text ?? 'null';
    return { isError: result.isError === true, payload: JSON.parse(text) as T };
  };
  return {
    call,
    ok: async <T>(tool: string, args: Record<string, unknown> = {}) => {
      const answer = await call<T>(tool, args);
      if (answer.isError) throw new Error(`${tool} failed: ${JSON.stringify(answer.payload)}`);
      return answer.payload;
    },
    toolNames: async () => (await client.listTools()).tools.map((t) => t.name),
    called: () => called,
    stderr: () => stderr,
    close: () => client.close(),
  };
}
