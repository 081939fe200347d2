/** The login page: username and password against `POST /api/auth/login`; throttling shows its wait. */
import { useState, type FormEvent } from 'react';
import { api, asError } from '../api.js';

export function LoginPage({ onLogin }: { onLogin: (username: string) => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const { data, error: failed, response } = await api.POST('/api/auth/login', { body: { username, password } });
    setBusy(false);
    if (data) {
      onLogin(data.username);
      return;
    }
    if (response.status === 429) setError(`Too many failed attempts. Try again in ${response.headers.get('Retry-After') ?? 'a few'} seconds.`);
    else setError(asError(failed, response.status).detail);
  }

  return (
    <main className="login">
      <form onSubmit={(event) => void submit(event)} aria-labelledby="login-title">
        <h1 id="login-title">Sign in to agentkit</h1>
        <p className="muted">The local UI for traces, approvals and executions.</p>
        <label>
          Username
          <input name="username" autoComplete="username" autoFocus value={username} onChange={(e) => setUsername(e.target.value)} required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
        </label>
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="muted small">
          Forgot it? Run <code>agentkit ui reset-password</code>.
        </p>
      </form>
    </main>
  );
}
