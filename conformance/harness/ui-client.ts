/** A browser-like HTTP client for the local UI's API in scenarios: keeps cookies, echoes the CSRF cookie on writes. */
export class Browser {
  readonly cookies = new Map<string, string>();
  constructor(readonly url: string) {}

  async request(method: string, route: string, body?: unknown, options: { csrf?: boolean | string } = {}) {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const csrf = options.csrf ?? true;
    if (csrf === true && this.cookies.has('agentkit_csrf')) headers['x-csrf-token'] = this.cookies.get('agentkit_csrf')!;
    if (typeof csrf === 'string') headers['x-csrf-token'] = csrf;
    const response = await fetch(`${this.url}${route}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      if (attributes.some((a) => a.trim() === 'Max-Age=0')) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await response.text();
    // biome-ignore lint/suspicious/noExplicitAny: scenarios read response fields by name, as the tests did before this helper moved here
    return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as Record<string, any> };
  }

  get(route: string) {
    return this.request('GET', route);
  }

  async login(username = 'admin', password = 'correct horse') {
    await this.get('/api/auth/status');
    return this.request('POST', '/api/auth/login', { username, password });
  }
}
