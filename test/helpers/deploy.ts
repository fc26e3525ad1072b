// The real components of the deploy/ set-ups, started by the tests on loopback: redis-server,
// nginx (with its pid, logs and temp files in a test directory, on non-root ports), a self-signed
// certificate made with openssl at test time, and gateways as child processes of the real CLI.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import type { Test } from 'tap';

import { freePort, ServerProcess } from '../../bench/processes.js';
import { cliCommand, root } from './cli.js';

export { freePort };

/** An executable by name: on PATH, or in the sbin directories a non-root PATH leaves out (nginx). */
export function findTool(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/sbin', '/usr/local/sbin'];
  for (const dir of dirs) {
    const p = path.join(dir, name);
    if (dir !== '' && existsSync(p)) return p;
  }
  return undefined;
}

/** A scratch directory removed at the end of the test. */
export function tempDir(t: Test, name: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `tradeapi-${name}-`));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  readonly process: ServerProcess;
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop). */
  restart(): Promise<RedisServer>;
}

/** A throw-away redis-server on a free loopback port: no persistence, no protected-mode surprises. */
export async function startRedis(t: Test, bin: string, dir: string, port?: number): Promise<RedisServer> {
  const p = port ?? (await freePort());
  const proc = await ServerProcess.start({
    name: `redis-${p}`,
    command: bin,
    args: ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'],
    logDir: dir,
    readyLog: /Ready to accept connections/,
    readyTimeoutMs: 15_000,
  });
  t.teardown(() => proc.stop(2000));
  const server: RedisServer = {
    port: p,
    url: `redis://127.0.0.1:${p}`,
    process: proc,
    stop: () => proc.stop(5000),
    restart: () => startRedis(t, bin, dir, p),
  };
  return server;
}

/** Sends one Redis command in the inline protocol and returns the raw reply (for checks outside the code under test). */
export function redisCommand(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    socket.setEncoding('utf8');
    socket.once('connect', () => socket.write(`${command}\r\nQUIT\r\n`));
    socket.on('data', (d: string) => (reply += d));
    socket.once('close', () => resolve(reply));
    socket.once('error', reject);
  });
}

export interface Certificate {
  readonly cert: string;
  readonly key: string;
  /** The PEM text, to trust it as a CA in the client. */
  readonly pem: string;
}

/**
 * A self-signed certificate for localhost / 127.0.0.1, made now (never a committed private key),
 * valid from a day before to a day after this process's clock, which is the one its TLS clients
 * check it against: openssl's own clock may be another (scripts/clock/on.sh moves node's only),
 * so the dates are given (`openssl ca -selfsign -startdate -enddate`; `req -x509` starts at its now).
 */
export function selfSignedCertificate(dir: string): Certificate {
  const cert = path.join(dir, 'tls.crt');
  const key = path.join(dir, 'tls.key');
  const ca = path.join(dir, 'tls-ca');
  mkdirSync(ca, { recursive: true });
  writeFileSync(path.join(ca, 'index.txt'), '');
  writeFileSync(path.join(ca, 'serial'), '01\n');
  writeFileSync(
    path.join(ca, 'ca.cnf'),
    [
      '[ca]', 'default_ca = test_ca',
      '[test_ca]', `database = ${ca}/index.txt`, `new_certs_dir = ${ca}`, `serial = ${ca}/serial`, 'default_md = sha256',
      'policy = any', 'copy_extensions = copy', 'x509_extensions = v3', 'unique_subject = no',
      '[any]', 'commonName = supplied',
      // As `openssl req -x509` makes them (openssl.cnf's v3_ca): the certificate is its own CA.
      '[v3]', 'basicConstraints = critical,CA:true', 'subjectKeyIdentifier = hash', 'authorityKeyIdentifier = keyid:always,issuer',
      '',
    ].join('\n'),
  );
  const csr = path.join(ca, 'tls.csr');
  execFileSync('openssl', [
    'req', '-new', '-newkey', 'rsa:2048', '-nodes', '-sha256',
    '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-keyout', key, '-out', csr,
  ], { stdio: 'ignore' });
  const stamp = (ms: number): string => new Date(ms).toISOString().replace(/[-:T]/g, '').replace(/\.\d+Z$/, 'Z'); // YYYYMMDDHHMMSSZ
  const day = 86_400_000;
  execFileSync('openssl', [
    'ca', '-batch', '-config', path.join(ca, 'ca.cnf'), '-selfsign', '-keyfile', key, '-in', csr, '-out', cert, '-notext',
    '-startdate', stamp(Date.now() - day), '-enddate', stamp(Date.now() + day),
  ], { stdio: 'ignore' });
  return { cert, key, pem: readFileSync(cert, 'utf8') };
}

/** A gateway (`tradeapi serve [--read-only]`) as a child process, ready once it answers HTTP. */
export async function startGateway(t: Test, name: string, logDir: string, env: Record<string, string>, readOnly = false): Promise<{ port: number; process: ServerProcess }> {
  const port = await freePort();
  const prefix = readOnly ? '/api/v1' : (env.TRADEAPI_ROUTER_PREFIX ?? '');
  const proc = await ServerProcess.start({
    name,
    command: process.execPath,
    args: [...cliCommand(), 'serve', ...(readOnly ? ['--read-only'] : []), '--host', '127.0.0.1', '--port', String(port)],
    cwd: root,
    env: { ...process.env, TRADEAPI_HTTP: 'node', TRADEAPI_LOG_LEVEL: 'INFO', API_LOG_LEVEL: 'INFO', ...env },
    logDir,
    readyUrl: `http://127.0.0.1:${port}${prefix}/health`,
    readyTimeoutMs: 60_000,
  });
  t.teardown(() => proc.stop(5000));
  return { port, process: proc };
}

/** nginx in the foreground with a generated main configuration; pid, logs and temp paths in `dir`. */
export async function startNginx(t: Test, bin: string, dir: string, httpBlock: string, tlsPort: number): Promise<ServerProcess> {
  const conf = path.join(dir, 'nginx.conf');
  for (const sub of ['logs', 'client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(dir, sub), { recursive: true });
  writeFileSync(conf, `# generated by the test
daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log info;
events { worker_connections 1024; }
http {
  access_log ${dir}/logs/access.log;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${httpBlock}
}
`);
  try {
    execFileSync(bin, ['-t', '-q', '-c', conf, '-p', dir], { stdio: 'pipe', encoding: 'utf8' });
  } catch (e) {
    throw new Error(`nginx -t refused the configuration: ${(e as { stderr?: string }).stderr ?? String(e)}`);
  }
  // Ready once it answers: plain HTTP to its TLS port gets nginx's own 400 ("plain HTTP request
  // was sent to HTTPS port"), which needs no certificate on the probing side.
  const proc = await ServerProcess.start({ name: 'nginx', command: bin, args: ['-c', conf, '-p', dir], logDir: dir, readyUrl: `http://127.0.0.1:${tlsPort}/`, readyTimeoutMs: 15_000 });
  t.teardown(() => proc.stop(5000));
  return proc;
}

export interface Fetched {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** GET over HTTP or HTTPS (trusting `ca`), whole body in memory; the path is sent as written. */
export function get(url: string, headers: Record<string, string> = {}, ca?: string): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const onResponse = (res: http.IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    };
    // The path exactly as written: a URL object would resolve '..' segments before sending.
    const u = new URL(url);
    const rawPath = url.replace(/^[a-z]+:\/\/[^/]+/, '');
    const options = { host: u.hostname, port: u.port, path: rawPath, headers, agent: false as const };
    const req = u.protocol === 'https:' ? https.get({ ...options, ca }, onResponse) : http.get(options, onResponse);
    req.on('error', reject);
  });
}
