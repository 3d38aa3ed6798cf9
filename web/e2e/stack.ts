// Starts the real KubeOpera processes the browser tests run against: a
// management sandbox (kubeopera dev: etcd, kube-apiserver, simulated
// nodes), the server on it and, for the e2e suite, the controller.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const repo = resolve(import.meta.dirname, '../..');
export const bin = join(repo, 'bin/kubeopera');
export const stateFile = join(import.meta.dirname, '.stack.json');

export const admin = { username: 'e2e-admin', password: 'e2e-admin-password-0123' };
export const viewer = { username: 'e2e-viewer', password: 'e2e-viewer-password-0123' };

export type StackState = { baseURL: string; dir: string; kubeconfig?: string; pids: number[] };

export function readState(): StackState {
  return JSON.parse(readFileSync(stateFile, 'utf8'));
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
    s.on('error', fail);
  });
}

function start(dir: string, name: string, args: string[], env: Record<string, string> = {}): ChildProcess {
  const log = openSync(join(dir, `${name}.log`), 'a');
  const p = spawn(bin, args, { cwd: repo, detached: true, stdio: ['ignore', log, log], env: { ...process.env, ...env } });
  p.unref();
  return p;
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean> | boolean, dir: string) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} not ready after ${timeoutMs / 1000}s; logs in ${dir}`);
}

function createUser(dataDir: string, u: { username: string; password: string }, role: string) {
  const r = spawnSync(bin, ['users', 'create', '--data-dir', dataDir, '--username', u.username,
    '--email', `${u.username}@example.com`, '--role', role, '--password-stdin'], { cwd: repo, input: u.password + '\n' });
  if (r.status !== 0) throw new Error(`users create ${u.username}: ${r.stderr}`);
}

export async function startStack(opts: { sandbox: boolean; seed?: number }): Promise<StackState> {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run 'make build' first`);
  const dir = mkdtempSync(join(tmpdir(), 'kubeopera-e2e-'));
  const dataDir = join(dir, 'data');
  const pids: number[] = [];
  const state: StackState = { baseURL: '', dir, pids };
  writeFileSync(stateFile, JSON.stringify(state));
  if (opts.seed) {
    const r = spawnSync('go', ['run', './hack/dashboard-seed', '-data-dir', dataDir, '-n', String(opts.seed)], { cwd: repo });
    if (r.status !== 0) throw new Error(`seed: ${r.stderr}`);
  }
  createUser(dataDir, admin, 'platform-admin');
  createUser(dataDir, viewer, 'viewer');
  const serverArgs = ['server', '--data-dir', dataDir, '--plugin-dir', join(repo, 'bin/plugins')];
  if (opts.sandbox) {
    const kubeconfig = join(dir, 'kubeconfig');
    state.kubeconfig = kubeconfig;
    pids.push(start(dir, 'sandbox', ['dev', '--kubeconfig-out', kubeconfig, '--nodes', '3']).pid!);
    writeFileSync(stateFile, JSON.stringify(state));
    await until('the management sandbox', 300_000, () => existsSync(kubeconfig), dir);
    serverArgs.push('--kubeconfig', kubeconfig, '--self-kubeconfig', kubeconfig);
  }
  const port = await freePort();
  state.baseURL = `http://127.0.0.1:${port}`;
  pids.push(start(dir, 'server', [...serverArgs, '--listen', `127.0.0.1:${port}`]).pid!);
  writeFileSync(stateFile, JSON.stringify(state));
  await until('kubeopera server', 120_000, async () => {
    try {
      return (await fetch(`${state.baseURL}/readyz`)).ok;
    } catch {
      return false;
    }
  }, dir);
  if (opts.sandbox) {
    // Unreachable clusters fail after 15s instead of 5 minutes.
    pids.push(start(dir, 'controller', ['controller', '--kubeconfig', state.kubeconfig!, '--data-dir', dataDir,
      '--plugin-dir', join(repo, 'bin/plugins'), '--leader-elect=false', '--metrics-bind-address', '0',
      '--health-probe-bind-address', '0', '--access-retry-window', '15s', '--chart-cache', join(dir, 'charts')]).pid!);
    writeFileSync(stateFile, JSON.stringify(state));
  }
  return state;
}

export function stopStack() {
  if (!existsSync(stateFile)) return;
  const s = readState();
  // Each process leads its own group; the server stops before the sandbox.
  for (const pid of [...s.pids].reverse()) {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  const end = Date.now() + 30_000;
  for (const pid of s.pids) {
    while (Date.now() < end) {
      try {
        process.kill(pid, 0);
      } catch {
        break;
      }
      spawnSync('sleep', ['0.2']);
    }
  }
  if (!process.env.KUBEOPERA_E2E_KEEP) rmSync(s.dir, { recursive: true, force: true });
  rmSync(stateFile, { force: true });
}
