// Starts the real KubeOpera the browser tests run against. The e2e suite
// runs `kubeopera dev` (management sandbox, server, controller, git
// server, Flux) and signs in as the admin it creates; the benchmark runs a
// bare server on a seeded database.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { addNodes } from './kube';

export const repo = resolve(import.meta.dirname, '../..');
export const bin = join(repo, 'bin/kubeopera');
export const stateFile = join(import.meta.dirname, '.stack.json');

type User = { username: string; password: string };

export type StackState = {
  baseURL: string;
  dir: string;
  kubeconfig?: string;
  pids: number[];
  users: { admin: User; viewer: User };
};

export function readState(): StackState {
  return JSON.parse(readFileSync(stateFile, 'utf8'));
}

// The users are read when a test uses them: the stack makes them after the
// spec files are loaded.
function stackUser(role: 'admin' | 'viewer'): User {
  return {
    get username() { return readState().users[role].username; },
    get password() { return readState().users[role].password; },
  };
}

export const admin = stackUser('admin');
export const viewer = stackUser('viewer');

// The viewer is made with known passwords; the admin is dev's own, or made
// the same way for the bare server.
const viewerUser: User = { username: 'e2e-viewer', password: 'e2e-viewer-password-0123' };
const benchAdmin: User = { username: 'e2e-admin', password: 'e2e-admin-password-0123' };

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
    s.on('error', fail);
  });
}

export function start(dir: string, name: string, args: string[], env: Record<string, string> = {}, program = bin): number {
  const log = openSync(join(dir, `${name}.log`), 'a');
  const p = spawn(program, args, { cwd: repo, detached: true, stdio: ['ignore', log, log], env: { ...process.env, ...env } });
  p.unref();
  return p.pid!;
}

export async function until<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined> | T | undefined, dir: string): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = await check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} not ready after ${timeoutMs / 1000}s; logs in ${dir}`);
}

function createUser(dataDir: string, u: User, role: string) {
  const r = spawnSync(bin, ['users', 'create', '--data-dir', dataDir, '--username', u.username,
    '--email', `${u.username}@example.com`, '--role', role, '--password-stdin'], { cwd: repo, input: u.password + '\n' });
  if (r.status !== 0) throw new Error(`users create ${u.username}: ${r.stderr}`);
}

function save(state: StackState) {
  writeFileSync(stateFile, JSON.stringify(state));
}

export async function startStack(opts: { sandbox: boolean; seed?: number }): Promise<StackState> {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run 'make build' first`);
  const dir = mkdtempSync(join(tmpdir(), 'kubeopera-e2e-'));
  const state: StackState = { baseURL: '', dir, pids: [], users: { admin: benchAdmin, viewer: viewerUser } };
  save(state);
  if (opts.sandbox) await startDev(state);
  else await startServer(state, opts.seed);
  return state;
}

// startDev runs `kubeopera dev` and reads from its banner where it serves
// and the admin's password file; the viewer goes into its data directory.
// Three simulated nodes in eu-north-1 give Register This Cluster something
// to show.
async function startDev(state: StackState) {
  const dev = await runDev(state.dir, [], (pid) => { state.pids.push(pid); save(state); });
  state.baseURL = dev.baseURL;
  state.kubeconfig = dev.kubeconfig;
  state.users.admin = dev.admin;
  createUser(dev.dataDir, viewerUser, 'viewer');
  save(state);
  await addNodes(state.kubeconfig, 'eu-north-1', 3);
}

export type Dev = { baseURL: string; kubeconfig: string; admin: User; dataDir: string };

// runDev starts `kubeopera dev` in dir (its log: dir/dev.log) on port, or
// a free one, with more flags (a spec's own stack: single sign-on), tells
// started its process ID, and waits for its banner.
export async function runDev(dir: string, flags: string[], started: (pid: number) => void, port?: number): Promise<Dev> {
  port ??= await freePort();
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  const kubeconfig = join(dir, 'kubeconfig');
  started(start(dir, 'dev', ['dev', '--listen', `127.0.0.1:${port}`, '--plugin-dir', join(repo, 'bin/plugins'),
    // --auto-retries 0: a local cluster whose start is killed stays Failed
    // for the retry spec, instead of being started again by the controller.
    '--kubeconfig-out', kubeconfig, '--poll-interval', '500ms', '--auto-retries', '0', ...flags], { TMPDIR: tmp }));
  const log = join(dir, 'dev.log');
  const banner = await until('kubeopera dev', 300_000, () => {
    const text = readFileSync(log, 'utf8');
    const url = /^KubeOpera is ready in \S+: (http:\/\/\S+)$/m.exec(text)?.[1];
    const passwordFile = /dashboard: sign in as (\S+) with the password in (\S+)$/m.exec(text);
    return url && passwordFile ? { url, username: passwordFile[1], passwordFile: passwordFile[2] } : undefined;
  }, dir);
  return { baseURL: banner.url, kubeconfig, dataDir: dirname(banner.passwordFile),
    admin: { username: banner.username, password: readFileSync(banner.passwordFile, 'utf8').trim() } };
}

// startServer runs a bare server (no management cluster) on a database
// seeded with clusters.
async function startServer(state: StackState, seed?: number) {
  const { dir } = state;
  const dataDir = join(dir, 'data');
  if (seed) {
    const r = spawnSync('go', ['run', './hack/dashboard-seed', '-data-dir', dataDir, '-n', String(seed)], { cwd: repo });
    if (r.status !== 0) throw new Error(`seed: ${r.stderr}`);
  }
  createUser(dataDir, benchAdmin, 'platform-admin');
  createUser(dataDir, viewerUser, 'viewer');
  const port = await freePort();
  state.baseURL = `http://127.0.0.1:${port}`;
  state.pids.push(start(dir, 'server', ['server', '--data-dir', dataDir, '--plugin-dir', join(repo, 'bin/plugins'),
    '--listen', `127.0.0.1:${port}`]));
  save(state);
  await until('kubeopera server', 120_000, async () => {
    try {
      return (await fetch(`${state.baseURL}/readyz`)).ok;
    } catch {
      return false;
    }
  }, dir);
}

export function stopStack() {
  if (!existsSync(stateFile)) return;
  const s = readState();
  stop(s.pids);
  if (!process.env.KUBEOPERA_E2E_KEEP) rmSync(s.dir, { recursive: true, force: true });
  rmSync(stateFile, { force: true });
}

// stop sends SIGTERM to each process itself, last started first: dev then
// stops and removes everything it started. Whatever is left of their
// process groups after a minute and a half is killed.
export function stop(pids: number[]) {
  for (const pid of [...pids].reverse()) signal(pid, 'SIGTERM');
  const end = Date.now() + 90_000;
  for (const pid of pids) {
    while (Date.now() < end && running(pid)) spawnSync('sleep', ['0.2']);
    signal(-pid, 'SIGKILL');
  }
}

// running reports whether pid runs. An exited child this process has not
// reaped yet (a zombie) answers signals, so its state is read instead.
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX] /s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

// signal reports whether the process (group, when pid < 0) was there.
function signal(pid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}
