// The one API client: typed by schema.ts, which is generated from the
// server's /openapi.json (make web-types), so the UI and the API agree.
import type { components, paths } from './schema';

type S = components['schemas'];
export type Cluster = S['Cluster'];
export type ClusterDetail = S['ClusterDetail'];
export type ClusterCondition = S['ClusterCondition'];
export type ClusterEvent = S['ClusterEvent'];
export type ClusterList = S['ClusterList'];
export type Node = S['Node'];
export type HealthScore = S['HealthScore'];
export type Overview = S['Overview'];
export type OverviewRow = S['OverviewRow'];
export type Credential = S['Credential'];
export type SignInMethods = S['SignInMethods'];
export type CredentialRequest = S['CredentialRequest'];
export type ConnectRequest = S['ConnectRequest'];
export type ProvisionRequest = S['ProvisionRequest'];
export type Session = S['Session'];
export type Problem = S['Problem'];
export type InputField = S['InputField'];
export type Provider = S['Provider'];
export type UpdateClusterRequest = S['UpdateClusterRequest'];
export type LifecycleResponse = S['LifecycleResponse'];
export type User = S['User'];
export type UserCreateRequest = S['UserCreateRequest'];
export type CreatedUser = S['CreatedUser'];
export type AccessEnded = S['AccessEnded'];
export type AuditEvent = S['AuditEvent'];
export type AuditPage = S['AuditPage'];
export type Estimate = S['Estimate'];
export type TeamSummary = S['TeamSummary'];
export type Team = S['Team'];
export type Member = S['Member'];
export type TeamRole = S['MemberRequest']['role'];
export type ClusterKubeconfig = S['ClusterKubeconfig'];

/** An error answer of the API, with its problem document. */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem;
  constructor(status: number, problem: Problem) {
    super(problem.detail || problem.title || `request failed with status ${status}`);
    this.status = status;
    this.problem = problem;
  }
  /** Field name → message, for showing next to the field. */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const f of this.problem.fields ?? []) {
      if (f.field && f.message && !out[f.field]) out[f.field] = f.message;
    }
    return out;
  }
}

let csrfToken = '';

/** Sets the token every mutating request sends in X-CSRF-Token. */
export function setCsrfToken(token: string) {
  csrfToken = token;
}

/** Fired when the server says the session is gone (expired, revoked). */
export const SIGNED_OUT_EVENT = 'kubeopera:signed-out';

export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  let resp: Response;
  try {
    resp = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, { title: 'Network error', status: 0, detail: 'The KubeOpera server cannot be reached; check your connection and retry.' } as Problem);
  }
  if (resp.status === 204) return undefined as T;
  const text = await resp.text();
  const data = text ? JSON.parse(text) : undefined;
  if (!resp.ok) {
    const problem: Problem = data ?? { title: resp.statusText, status: resp.status, detail: resp.statusText };
    if (resp.status === 401 && path !== '/api/v1/session') {
      window.dispatchEvent(new CustomEvent(SIGNED_OUT_EVENT, { detail: problem.detail }));
    }
    throw new ApiError(resp.status, problem);
  }
  return data as T;
}

/** A page of GET /clusters: limit, the continue token of the previous page, filters (as the document declares them). */
export type ClusterQuery = NonNullable<paths['/api/v1/clusters']['get']['parameters']['query']>;

/** A page of GET /audit: filters, limit, and the next value of the previous page. */
export type AuditQuery = NonNullable<paths['/api/v1/audit']['get']['parameters']['query']>;

// Every call names a path and method of the document (paths, generated
// from the server's /openapi.json), and its parameters, body and answer
// are the document's types for them: a URL, a parameter or a body the
// document does not have fails the type check (tsc, in the build), so the
// client cannot drift from the API.
type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type Path = keyof paths;
/** The methods the document has for path P. */
type MethodOf<P extends Path> = { [M in Method]: paths[P][M] extends undefined ? never : M }[Method];
type Op<P extends Path, M extends Method> = NonNullable<paths[P][M]>;
type JSONOf<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;
/** The JSON of the operation's success answer (200, 201 or 202; none for 204). */
type Answer<O> = O extends { responses: infer R }
  ? 200 extends keyof R ? JSONOf<R[200]> : 201 extends keyof R ? JSONOf<R[201]> : 202 extends keyof R ? JSONOf<R[202]> : undefined
  : never;
type Params<O> = O extends { parameters: infer Pa } ? Pa : never;
type ReqBody<O> = O extends { requestBody?: infer RB } ? NonNullable<RB> : never;
type JSONBody<O> = ReqBody<O> extends { content: { 'application/json': infer B } } ? B : never;
type BodyPart<O> = [ReqBody<O>] extends [never] ? { body?: never }
  : O extends { requestBody: unknown } ? { body: JSONBody<O> } : { body?: JSONBody<O> };
/** What a call of operation O sends: its path and query parameters and its JSON body, where it has them. */
type Args<O> = (Params<O> extends { path: infer PP } ? { path: PP } : { path?: never }) &
  (Params<O> extends { query?: infer Q } ? { query?: Q } : { query?: never }) & BodyPart<O>;

/** Calls the operation at method and path of the document. */
export function call<P extends Path, M extends MethodOf<P>>(method: M, path: P, args: Args<Op<P, M>>): Promise<Answer<Op<P, M>>> {
  const a = args as { path?: Record<string, string>; query?: Record<string, string | number | undefined>; body?: unknown };
  const url = (path as string).replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(a.path?.[name] ?? ''));
  return request(method.toUpperCase(), url + queryString(a.query ?? {}), a.body);
}

/** "?a=1&b=2" of the parameters that are set, or "". */
function queryString(q: Record<string, string | number | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

const none = {};

export const api = {
  session: () => call('get', '/api/v1/session', none),
  signIn: (username: string, password: string) => call('post', '/api/v1/session', { body: { username, password } }),
  signOut: () => call('delete', '/api/v1/session', none),
  changeOwnPassword: (username: string, password: string, newPassword: string) =>
    call('post', '/api/v1/session/password', { body: { username, password, newPassword } }),
  signInMethods: () => call('get', '/api/v1/auth/methods', none),
  clusters: (query: ClusterQuery = {}) => call('get', '/api/v1/clusters', { query }),
  cluster: (id: string) => call('get', '/api/v1/clusters/{id}', { path: { id } }),
  kubeconfig: (id: string) => call('get', '/api/v1/clusters/{id}/kubeconfig', { path: { id } }),
  health: (id: string) => call('get', '/api/v1/clusters/{id}/health', { path: { id } }),
  registerSelf: () => call('post', '/api/v1/clusters/register-self', { body: {} }),
  connect: (body: ConnectRequest) => call('post', '/api/v1/clusters/connect', { body }),
  provision: (body: ProvisionRequest) => call('post', '/api/v1/clusters/provision', { body }),
  disconnect: (id: string) => call('delete', '/api/v1/clusters/{id}', { path: { id } }),
  update: (id: string, body: UpdateClusterRequest) => call('patch', '/api/v1/clusters/{id}', { path: { id }, body }),
  teardown: (id: string, confirmName: string) => call('post', '/api/v1/clusters/{id}/teardown', { path: { id }, body: { confirmName } }),
  retry: (id: string) => call('post', '/api/v1/clusters/{id}/retry', { path: { id } }),
  overview: () => call('get', '/api/v1/federation/overview', none),
  providers: () => call('get', '/api/v1/providers', none),
  estimate: (name: string, inputs: Record<string, string>) => call('post', '/api/v1/providers/{name}/estimate', { path: { name }, body: { inputs } }),
  credentials: () => call('get', '/api/v1/credentials', none),
  addCredential: (body: CredentialRequest) => call('post', '/api/v1/credentials', { body }),
  deleteCredential: (id: string) => call('delete', '/api/v1/credentials/{id}', { path: { id } }),
  users: () => call('get', '/api/v1/users', none),
  createUser: (body: UserCreateRequest) => call('post', '/api/v1/users', { body }),
  disableUser: (id: string) => call('post', '/api/v1/users/{id}/disable', { path: { id } }),
  enableUser: (id: string) => call('post', '/api/v1/users/{id}/enable', { path: { id } }),
  deleteUser: (id: string) => call('delete', '/api/v1/users/{id}', { path: { id } }),
  resetPassword: (id: string) => call('post', '/api/v1/users/{id}/password-reset', { path: { id } }),
  endSessions: (id: string) => call('delete', '/api/v1/users/{id}/sessions', { path: { id } }),
  teams: () => call('get', '/api/v1/teams', none),
  createTeam: (name: string) => call('post', '/api/v1/teams', { body: { name } }),
  deleteTeam: (name: string) => call('delete', '/api/v1/teams/{name}', { path: { name } }),
  members: (name: string) => call('get', '/api/v1/teams/{name}/members', { path: { name } }),
  setMember: (name: string, userId: string, role: TeamRole) =>
    call('put', '/api/v1/teams/{name}/members/{userId}', { path: { name, userId }, body: { role } }),
  removeMember: (name: string, userId: string) => call('delete', '/api/v1/teams/{name}/members/{userId}', { path: { name, userId } }),
  audit: (query: AuditQuery = {}) => call('get', '/api/v1/audit', { query }),
};
