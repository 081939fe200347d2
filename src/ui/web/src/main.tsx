/** The local UI's web app: checks the session, then routes to a page inside the shared layout. */
import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { api, type Schemas } from './api.js';
import { ErrorBox, Loading } from './components/states.js';
import { Link, navigate, useLocation } from './router.js';
import { AuthContext } from './components/role.js';
import { ApprovalsPage } from './pages/approvals.js';
import { ApprovalsHistoryPage } from './pages/approvals-history.js';
import { EvalComparePage, EvalRunPage, EvalsPage } from './pages/evals.js';
import { ExecutionPage } from './pages/execution.js';
import { ExecutionsPage } from './pages/executions.js';
import { LoginPage } from './pages/login.js';
import { OverviewPage } from './pages/overview.js';
import { ReplayPage } from './pages/replay.js';
import { TracePage } from './pages/trace.js';
import { TracesPage } from './pages/traces.js';
import './styles.css';

function App() {
  const location = useLocation();
  const [auth, setAuth] = useState<Schemas['AuthStatus'] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the status is asked again on entering and on leaving the login page, not on every path
  useEffect(() => {
    api.GET('/api/auth/status').then(
      ({ data }) => (data ? setAuth(data) : setFailure('the server did not answer /api/auth/status')),
      (error: unknown) => setFailure(String(error)),
    );
  }, [location.path === '/login']);

  useEffect(() => {
    // `/` focuses the page's search box, wherever the focus is (except while typing).
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (event.key !== '/' || target.closest('input, textarea, select')) return;
      const search = document.querySelector<HTMLInputElement>('[data-search]');
      if (search) {
        event.preventDefault();
        search.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  if (failure) return <ErrorBox error={{ detail: failure, code: 'network_error' }} />;
  if (!auth) return <Loading what="the session" />;
  if (!auth.authenticated || location.path === '/login') {
    if (auth.authenticated) {
      navigate(location.query.get('next') ?? '/', { replace: true });
      return null;
    }
    return (
      <LoginPage
        onLogin={() => {
          // The role comes from the server: ask again (a signed-in user may also have been demoted since).
          void api.GET('/api/auth/status').then(({ data }) => data && setAuth(data));
          // Back to the page that asked for the login: `?next=` on /login, else the page itself.
          navigate(location.path === '/login' ? safeNext(location.query.get('next')) : `${location.path}${window.location.search}`, { replace: true });
        }}
      />
    );
  }
  return (
    <AuthContext.Provider value={auth}>
      <Layout auth={auth} path={location.path} onLogout={() => setAuth({ authenticated: false, username: null, role: null, no_auth: false })}>
        <Page path={location.path} query={location.query} />
      </Layout>
    </AuthContext.Provider>
  );
}

/** Only same-app paths are followed after login. */
function safeNext(next: string | null): string {
  return next?.startsWith('/') && !next.startsWith('//') ? next : '/';
}

function Page({ path, query }: { path: string; query: URLSearchParams }) {
  if (path === '/') return <OverviewPage />;
  if (path === '/traces') return <TracesPage query={query} />;
  if (path === '/approvals') return <ApprovalsPage />;
  if (path === '/approvals/history') return <ApprovalsHistoryPage />;
  if (path === '/executions') return <ExecutionsPage query={query} />;
  if (path === '/evals') return <EvalsPage query={query} />;
  if (path === '/evals/compare') return <EvalComparePage query={query} />;
  let match = /^\/traces\/([^/]+)\/replay$/.exec(path);
  if (match) return <ReplayPage traceId={decodeURIComponent(match[1]!)} query={query} />;
  match = /^\/traces\/([^/]+)$/.exec(path);
  if (match) return <TracePage traceId={decodeURIComponent(match[1]!)} query={query} />;
  match = /^\/evals\/([^/]+)$/.exec(path);
  if (match) return <EvalRunPage runId={decodeURIComponent(match[1]!)} />;
  match = /^\/executions\/([^/]+)$/.exec(path);
  if (match) return <ExecutionPage executionId={decodeURIComponent(match[1]!)} />;
  return (
    <div className="state state-empty">
      <h1>Not found</h1>
      <p>
        No page at <code>{path}</code>. <Link to="/">Go to the overview</Link>.
      </p>
    </div>
  );
}

const NAV: Array<[string, string]> = [
  ['/', 'Overview'],
  ['/traces', 'Traces'],
  ['/approvals', 'Approvals'],
  ['/executions', 'Executions'],
  ['/evals', 'Evals'],
];

function Layout(props: { auth: Schemas['AuthStatus']; path: string; onLogout: () => void; children: React.ReactNode }) {
  const active = (to: string) => (to === '/' ? props.path === '/' : props.path === to || props.path.startsWith(`${to}/`));
  return (
    <div className="app">
      <header className="topbar">
        <Link to="/" className="brand">
          agentkit
        </Link>
        <nav aria-label="Main">
          {NAV.map(([to, label]) => (
            <Link key={to} to={to} className={active(to) ? 'nav active' : 'nav'} aria-current={active(to) ? 'page' : undefined}>
              {label}
            </Link>
          ))}
        </nav>
        <div className="who">
          {props.auth.project !== undefined && (
            <span className="badge-project" title="agentkit ui --project: this Platform project's traces and eval runs, read-only">
              project {props.auth.project}
            </span>
          )}
          {props.auth.no_auth ? (
            <span className="badge-warn" title="Started with --no-auth: anyone who can reach this port can approve runs">
              no login
            </span>
          ) : (
            <>
              <span className="muted">{props.auth.username}</span>
              <span className="badge-role" title="What this user may do: viewer reads; approver also decides; admin also reruns, saves tests, marks favorites">
                {props.auth.role}
              </span>
              <button
                type="button"
                className="link-button"
                onClick={() => {
                  void api.POST('/api/auth/logout').then(() => {
                    props.onLogout();
                    navigate('/login');
                  });
                }}
              >
                Sign out
              </button>
              <button
                type="button"
                className="link-button"
                title="End this user's sessions in every browser"
                onClick={() => {
                  void api.POST('/api/auth/logout-everywhere').then(() => {
                    props.onLogout();
                    navigate('/login');
                  });
                }}
              >
                Sign out everywhere
              </button>
            </>
          )}
        </div>
      </header>
      <main className="content">{props.children}</main>
    </div>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
