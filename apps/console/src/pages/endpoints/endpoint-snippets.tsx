import { useState } from 'react';
import { Button } from 'react-aria-components';
import type { EndpointV2View } from '@app/contracts';
import { ErrorBox, Section } from '../../ui';

interface Snippet {
  /** The language, as its copy button names it: "Copy the curl snippet". */
  name: string;
  code: string;
}

/**
 * The snippets of a queue endpoint: curl, runpod-python pointed at this deployment (`endpoint_url_base`) and the
 * `runpod-sdk` npm client (its `baseUrl` option). The key is read from the environment, never written out.
 */
export function queueSnippets(origin: string, id: string): Snippet[] {
  return [
    {
      name: 'curl',
      code: [
        `curl -X POST ${origin}/v2/${id}/runsync \\`,
        '  -H "Authorization: Bearer $RUNPOD_API_KEY" \\',
        '  -H "Content-Type: application/json" \\',
        `  -d '{"input": {"prompt": "hello"}}'`,
      ].join('\n'),
    },
    {
      name: 'Python (runpod)',
      code: [
        'import os',
        'import runpod',
        '',
        'runpod.api_key = os.environ["RUNPOD_API_KEY"]',
        `runpod.endpoint_url_base = "${origin}/v2"`,
        '',
        `endpoint = runpod.Endpoint("${id}")`,
        'print(endpoint.run_sync({"prompt": "hello"}, timeout=60))',
      ].join('\n'),
    },
    {
      name: 'JavaScript (runpod-sdk)',
      code: [
        'import runpodSdk from "runpod-sdk";',
        '',
        `const runpod = runpodSdk(process.env.RUNPOD_API_KEY, { baseUrl: "${origin}/v2" });`,
        `const result = await runpod.endpoint("${id}").runSync({ input: { prompt: "hello" } });`,
        'console.log(result);',
      ].join('\n'),
    },
  ];
}

/** A load-balancing endpoint is called as any HTTP server, through the gateway's /lb/{id}/ prefix. */
export function lbSnippets(origin: string, id: string): Snippet[] {
  return [
    {
      name: 'curl',
      code: [
        `curl ${origin}/lb/${id}/ -H "Authorization: Bearer $RUNPOD_API_KEY"`,
        `curl -X POST ${origin}/lb/${id}/<path> \\`,
        '  -H "Authorization: Bearer $RUNPOD_API_KEY" \\',
        '  -H "Content-Type: application/json" \\',
        `  -d '{"prompt": "hello"}'`,
      ].join('\n'),
    },
  ];
}

/** A copy button (the Clipboard API): it says when it is done; a refusal shows as an error beside it. */
function CopyButton({ what, text }: { what: string; text: string }) {
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => {
        setError(null);
        setCopied(true);
        setTimeout(() => setCopied(false), 2000);
      },
      (e: unknown) => setError(`could not copy: ${(e as Error).message}`),
    );
  };
  return (
    <>
      <Button className="secondary small" onPress={copy}>
        Copy<span className="sr-only"> {what}</span>
      </Button>
      <span role="status" className="muted">
        {copied ? 'Copied' : ''}
      </span>
      <ErrorBox error={error} />
    </>
  );
}

/** Where the endpoint answers (this deployment's gateway, the console's own origin) and how to call it. */
export function EndpointSnippets({ endpoint }: { endpoint: EndpointV2View }) {
  const origin = window.location.origin;
  const lb = endpoint.type === 'LOAD_BALANCER';
  const url = lb ? `${origin}/lb/${endpoint.id}/` : `${origin}/v2/${endpoint.id}`;
  const snippets = lb ? lbSnippets(origin, endpoint.id) : queueSnippets(origin, endpoint.id);
  return (
    <Section title="Calling it">
      <dl className="facts">
        <dt>URL</dt>
        <dd>
          <code>{url}</code> <CopyButton what="the URL" text={url} />{' '}
          <span className="muted">
            {lb
              ? '(any method and path after it reaches your workers)'
              : '(append /run, /runsync, /status/{job}, /stream/{job}, /health)'}
          </span>
        </dd>
      </dl>
      {snippets.map((s) => (
        <figure key={s.name} className="snippet">
          <figcaption>
            {s.name} <CopyButton what={`the ${s.name} snippet`} text={s.code} />
          </figcaption>
          <pre>
            <code>{s.code}</code>
          </pre>
        </figure>
      ))}
    </Section>
  );
}
