import { useId, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { SsoSessionView } from '@app/contracts';
import { api } from './api';
import { ErrorBox } from './ui';

/**
 * The account a single-sign-on session acts for: the user's own or one of their teams (POST /console/sso/account).
 * Every query is reset after a switch: what the console showed was the other account's.
 */
export function AccountSwitcher({ session }: { session: SsoSessionView }) {
  const client = useQueryClient();
  const id = useId();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const change = async (accountId: string) => {
    setBusy(true);
    setError(null);
    try {
      await api('/console/sso/account', { method: 'POST', body: { accountId } });
      // Every query back to its initial state and fetched again, the session's first.
      await client.resetQueries();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="account-switcher">
      <label htmlFor={id}>Account</label>
      <select
        id={id}
        value={session.account.id}
        disabled={busy}
        onChange={(e) => void change(e.target.value)}
      >
        {session.accounts.map((a) => (
          <option key={a.id} value={a.id}>
            {a.kind === 'user' ? `${a.name} (personal)` : `${a.name} (team, ${a.role})`}
          </option>
        ))}
      </select>
      <ErrorBox error={error} />
    </span>
  );
}
