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

/** "?a=1&b=2" of the parameters that are set, or "". */
function queryString(q: Record<string, string | number | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

export const api = {
  session: () => request<Session>('GET', '/api/v1/session'),
  signIn: (username: string, password: string) => request<Session>('POST', '/api/v1/session', { username, password }),
  signOut: () => request<void>('DELETE', '/api/v1/session'),
  changeOwnPassword: (username: string, password: string, newPassword: string) =>
    request<void>('POST', '/api/v1/session/password', { username, password, newPassword }),
  signInMethods: () => request<SignInMethods>('GET', '/api/v1/auth/methods'),
  clusters: (q: ClusterQuery = {}) => request<ClusterList>('GET', `/api/v1/clusters${queryString(q)}`),
  cluster: (id: string) => request<ClusterDetail>('GET', `/api/v1/clusters/${encodeURIComponent(id)}`),
  kubeconfig: (id: string) => request<ClusterKubeconfig>('GET', `/api/v1/clusters/${encodeURIComponent(id)}/kubeconfig`),
  health: (id: string) => request<HealthScore>('GET', `/api/v1/clusters/${encodeURIComponent(id)}/health`),
  registerSelf: () => request<Cluster>('POST', '/api/v1/clusters/register-self', {}),
  connect: (r: ConnectRequest) => request<Cluster>('POST', '/api/v1/clusters/connect', r),
  provision: (r: ProvisionRequest) => request<Cluster>('POST', '/api/v1/clusters/provision', r),
  disconnect: (id: string) => request<void>('DELETE', `/api/v1/clusters/${encodeURIComponent(id)}`),
  update: (id: string, r: UpdateClusterRequest) => request<void>('PATCH', `/api/v1/clusters/${encodeURIComponent(id)}`, r),
  teardown: (id: string, confirmName: string) =>
    request<void>('POST', `/api/v1/clusters/${encodeURIComponent(id)}/teardown`, { confirmName }),
  retry: (id: string) => request<LifecycleResponse>('POST', `/api/v1/clusters/${encodeURIComponent(id)}/retry`),
  overview: () => request<Overview>('GET', '/api/v1/federation/overview'),
  providers: () => request<S['ProviderList']>('GET', '/api/v1/providers'),
  estimate: (provider: string, inputs: Record<string, string>) =>
    request<Estimate>('POST', `/api/v1/providers/${encodeURIComponent(provider)}/estimate`, { inputs }),
  credentials: () => request<S['CredentialList']>('GET', '/api/v1/credentials'),
  addCredential: (r: CredentialRequest) => request<Credential>('POST', '/api/v1/credentials', r),
  deleteCredential: (id: string) => request<void>('DELETE', `/api/v1/credentials/${encodeURIComponent(id)}`),
  users: () => request<S['UserList']>('GET', '/api/v1/users'),
  createUser: (r: UserCreateRequest) => request<CreatedUser>('POST', '/api/v1/users', r),
  disableUser: (id: string) => request<User>('POST', `/api/v1/users/${encodeURIComponent(id)}/disable`),
  enableUser: (id: string) => request<User>('POST', `/api/v1/users/${encodeURIComponent(id)}/enable`),
  deleteUser: (id: string) => request<void>('DELETE', `/api/v1/users/${encodeURIComponent(id)}`),
  resetPassword: (id: string) => request<CreatedUser>('POST', `/api/v1/users/${encodeURIComponent(id)}/password-reset`),
  endSessions: (id: string) => request<AccessEnded>('DELETE', `/api/v1/users/${encodeURIComponent(id)}/sessions`),
  teams: () => request<S['TeamList']>('GET', '/api/v1/teams'),
  createTeam: (name: string) => request<Team>('POST', '/api/v1/teams', { name }),
  deleteTeam: (name: string) => request<void>('DELETE', `/api/v1/teams/${encodeURIComponent(name)}`),
  members: (team: string) => request<S['MemberList']>('GET', `/api/v1/teams/${encodeURIComponent(team)}/members`),
  setMember: (team: string, userId: string, role: TeamRole) =>
    request<Member>('PUT', `/api/v1/teams/${encodeURIComponent(team)}/members/${encodeURIComponent(userId)}`, { role }),
  removeMember: (team: string, userId: string) =>
    request<void>('DELETE', `/api/v1/teams/${encodeURIComponent(team)}/members/${encodeURIComponent(userId)}`),
  audit: (q: AuditQuery = {}) => request<AuditPage>('GET', `/api/v1/audit${queryString(q)}`),
  openapi: () => request<{ paths?: Record<string, unknown> }>('GET', '/openapi.json'),
};
