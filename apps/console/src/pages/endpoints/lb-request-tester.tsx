import { useState, type FormEvent } from 'react';
import { Button } from 'react-aria-components';
import { storedKey } from '../../api';
import { ErrorBox, Section } from '../../ui';
import { SelectInput, TextInput } from '../../controls';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
type Method = (typeof METHODS)[number];

interface Answer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: string;
  ms: number;
}

/**
 * Sends one request to a load-balancing endpoint's workers through the gateway (/lb/{id}/<path>, ADR 26) and
 * shows what came back whole: status, headers, body and the time it took. The /lb/ routes take an API key as
 * bearer only (no console session cookie), so a console signed in by single sign-on asks for one here.
 */
export function LbRequestTester({ id }: { id: string }) {
  const signedInKey = storedKey();
  const [key, setKey] = useState('');
  const [method, setMethod] = useState<Method>('GET');
  const [path, setPath] = useState('/');
  const [body, setBody] = useState('');
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const hasBody = method !== 'GET' && method !== 'HEAD';

  const send = async (event: FormEvent) => {
    event.preventDefault();
    setPending(true);
    setError(null);
    const started = performance.now();
    const rest = path.replace(/^\/+/, '');
    try {
      const response = await fetch(`/lb/${id}/${rest}`, {
        method,
        headers: { authorization: `Bearer ${signedInKey ?? key}` },
        body: hasBody && body !== '' ? body : undefined,
      });
      const text = await response.text();
      setAnswer({
        status: response.status,
        statusText: response.statusText,
        headers: [...response.headers.entries()],
        body: text,
        ms: Math.round(performance.now() - started),
      });
    } catch (e) {
      setAnswer(null);
      setError(`the request did not get an answer (${(e as Error).message})`);
    } finally {
      setPending(false);
    }
  };

  return (
    <Section title="Test request">
      <form onSubmit={(e) => void send(e)} className="grid-form">
        {!signedInKey && (
          <TextInput
            label="API key"
            type="password"
            hint="The /lb/ routes take an API key as bearer; it is not kept"
            value={key}
            onChange={setKey}
          />
        )}
        <SelectInput
          label="Method"
          value={method}
          onChange={setMethod}
          options={METHODS.map((m) => ({ id: m, label: m }))}
        />
        <TextInput label="Path" hint={`After /lb/${id}/`} value={path} onChange={setPath} />
        {hasBody && <TextInput label="Body" multiline rows={3} value={body} onChange={setBody} />}
        <ErrorBox error={error} />
        <Button type="submit" className="wide" isDisabled={pending}>
          {pending ? 'Sending…' : 'Send request'}
        </Button>
      </form>
      {answer && (
        <section className="lb-answer" aria-label="Response">
          <p role="status">
            <strong>
              {answer.status} {answer.statusText}
            </strong>{' '}
            <span className="muted">in {answer.ms} ms</span>
          </p>
          <table aria-label="Response headers">
            <thead>
              <tr>
                <th scope="col">Header</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {answer.headers.map(([name, value]) => (
                <tr key={name}>
                  <th scope="row">{name}</th>
                  <td>
                    <code className="wrap">{value}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <figure className="snippet">
            <figcaption>Body</figcaption>
            <pre>
              <code>{answer.body || '(empty body)'}</code>
            </pre>
          </figure>
        </section>
      )}
    </Section>
  );
}
