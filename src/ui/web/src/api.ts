/**
 * The page's only way to the server: the generated local UI client, with two middlewares: writes carry the CSRF
 * cookie's value in `X-CSRF-Token`, and a 401 sends the user to the login page.
 */
import { createLocalUiClient, type components } from '../../../../generated/clients/ui.js';
import { navigate } from './router.js';

export type Schemas = components['schemas'];

/** The CSRF cookie's value, or '' before the server set it. */
function csrfToken(): string {
  const match = /(?:^|;\s*)agentkit_csrf=([^;]+)/.exec(document.cookie);
  return match ? decodeURIComponent(match[1]!) : '';
}

export const api = createLocalUiClient({ baseUrl: window.location.origin, credentials: 'same-origin' });

api.use({
  onRequest({ request }) {
    if (request.method !== 'GET' && request.method !== 'HEAD') request.headers.set('X-CSRF-Token', csrfToken());
    return request;
  },
  onResponse({ response, request }) {
    const url = new URL(request.url);
    if (response.status === 401 && !url.pathname.startsWith('/api/auth/') && window.location.pathname !== '/login') {
      navigate(`/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
    }
    return response;
  },
});

/** An API error body: `{detail, code}`. */
export interface ApiError {
  detail: string;
  code: string;
}

/** The error body of a failed call, or a generic one when the body is not the contract's. */
export function asError(error: unknown, status: number): ApiError {
  if (error && typeof error === 'object' && 'detail' in error && 'code' in error) return error as ApiError;
  return { detail: `request failed (HTTP ${status})`, code: 'internal_error' };
}
