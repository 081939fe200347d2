/**
 * Security headers on every response, and the built web app: hashed files under `/assets/` with a year-long
 * immutable cache, any other non-`/api` GET answered with `index.html` (the single-page app routes itself). `/api/*`
 * is never served from here, so an unknown API path stays a JSON 404.
 */
import express, { type RequestHandler } from 'express';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * A strict CSP (scripts and styles from this origin only, no inline script, no framing), no MIME sniffing, no
 * referrer, and isolation from other origins' windows.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function securityHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    next();
  };
}

/** Serve the web app built into `dir` (index.html + assets/). */
export function webApp(dir: string): RequestHandler {
  const index = path.join(dir, 'index.html');
  const assets = express.static(path.join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: false });
  const files = express.static(dir, { index: false, fallthrough: true, maxAge: 0 });
  return (req, res, next) => {
    if (req.path.startsWith('/api/') || req.path === '/api' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      next();
      return;
    }
    if (req.path.startsWith('/assets/')) {
      req.url = req.url.slice('/assets'.length);
      assets(req, res, (error?: unknown) => {
        if (error) res.status(404).type('text/plain').send('not found');
      });
      return;
    }
    files(req, res, () => {
      // Only a page navigation gets the app; an API-style request (`Accept: application/json`) falls through to the
      // JSON 404.
      if (!(req.headers.accept ?? '').includes('text/html')) {
        next();
        return;
      }
      if (!existsSync(index)) {
        res.status(503).type('text/plain').send('The web app is not built: run `npm run build` in the agentkit package.');
        return;
      }
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(index);
    });
  };
}
