// The pure parts of the bounded HTTP server (src/report/exporters/http-server.ts): routing,
// methods, bodies, the connection cap under RLIMIT_NOFILE.
import { describe, expect, it } from 'vitest';
import { answerFor, connectionCap, DEFAULT_HTTP_LIMITS, Routes, STOP_RESERVE } from '../../../../src/report/exporters/http-server';

const routes: Routes = {
  '/metrics': (request) => ({ status: 200, body: `metrics for ${request.method} ${request.path}` }),
};

describe('answerFor', () => {
  it('answers a known path, with or without a query string', () => {
    expect(answerFor(routes, 'GET', '/metrics', {})).toEqual({ status: 200, body: 'metrics for GET /metrics' });
    expect(answerFor(routes, 'HEAD', '/metrics?x=1&y', {}).body).toBe('metrics for HEAD /metrics');
  });

  it('404s an unknown path, names the known ones, and never reaches Object.prototype', () => {
    for (const path of ['/', '/metrics/', '/Metrics', '/constructor', '/__proto__', '/toString', '*', '']) {
      const answer = answerFor(routes, 'GET', path, {});
      expect(answer.status, path).toBe(404);
      expect(answer.body).toContain('/metrics');
    }
  });

  it('405s a method other than GET and HEAD, saying which are allowed', () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE', 'PATCH', 'get', '']) {
      const answer = answerFor(routes, method, '/metrics', {});
      expect(answer.status, method).toBe(405);
      expect(answer.headers).toEqual({ Allow: 'GET, HEAD' });
    }
  });

  it('413s a request that announces a body, of any length or chunked', () => {
    expect(answerFor(routes, 'GET', '/metrics', { 'content-length': '5' }).status).toBe(413);
    expect(answerFor(routes, 'GET', '/metrics', { 'content-length': '99999999999' }).status).toBe(413);
    expect(answerFor(routes, 'GET', '/metrics', { 'transfer-encoding': 'chunked' }).status).toBe(413);
    expect(answerFor(routes, 'GET', '/metrics', { 'content-length': '0' }).status).toBe(200);
  });

  it('lets a handler see the parsed request', () => {
    const seen: string[] = [];
    answerFor({ '/x': (r) => (seen.push(`${r.method} ${r.path} ${r.headers.host}`), { status: 204, body: '' }) }, 'GET', '/x?q', { host: 'h' });
    expect(seen).toEqual(['GET /x h']);
  });
});

describe('the default limits', () => {
  it('leave a client a scrape and nothing more: small headers, bounded requests, 10 s', () => {
    expect(DEFAULT_HTTP_LIMITS.connections).toBeLessThanOrEqual(64);
    expect(DEFAULT_HTTP_LIMITS.headerBytes).toBeLessThanOrEqual(16 * 1024);
    expect(DEFAULT_HTTP_LIMITS.requestsPerConnection).toBeGreaterThan(1);
    expect(DEFAULT_HTTP_LIMITS.connectionMs).toBe(10_000);
  });
});

describe('connectionCap', () => {
  it('is the wanted cap where descriptors abound, and shrinks to keep the stop reserve and a refusal free', () => {
    expect(connectionCap(32, Infinity)).toBe(32);
    expect(connectionCap(32, 1000)).toBe(32);
    expect(connectionCap(32, 32 + STOP_RESERVE + 1)).toBe(32);
    expect(connectionCap(32, 32 + STOP_RESERVE)).toBe(31);
    expect(connectionCap(32, 38)).toBe(38 - STOP_RESERVE - 1);
  });

  it('never falls below one connection: a listener that answers nobody is no listener', () => {
    expect(connectionCap(32, STOP_RESERVE)).toBe(1);
    expect(connectionCap(32, 0)).toBe(1);
    expect(connectionCap(32, -5)).toBe(1);
  });
});
