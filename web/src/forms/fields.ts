// How a plugin's declared fields (provider inputs, credential kinds) become
// a form: pure functions, so an outside plugin gets a first-class form with
// no dashboard change, and each rule is unit-tested.
import type { Credential, InputField, Provider } from '../api/client';

type CredentialKind = Provider['credentialKinds'][number];

/**
 * A field's title: its declared label; else "Cloud credential" for a
 * credential field, its name in words for any other (instanceType →
 * Instance type). The API sends the name as the label of a field that
 * declares none, so a label equal to the name counts as none.
 */
export function labelOf(f: Pick<InputField, 'name' | 'label' | 'type'>): string {
  if (f.label && f.label !== f.name) return f.label;
  if (f.type === 'credential') return 'Cloud credential';
  const words = f.name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The control a field is shown with, chosen by its type and presentation, never by its name. */
export type Control = 'credential' | 'select' | 'checkbox' | 'number' | 'textarea' | 'password' | 'text';

export function controlOf(f: Pick<InputField, 'type' | 'allowed' | 'multiline' | 'secret'>): Control {
  if (f.type === 'credential') return 'credential';
  if (f.allowed?.length) return 'select';
  if (f.type === 'bool') return 'checkbox';
  if (f.type === 'int') return 'number';
  if (f.multiline) return 'textarea';
  return f.secret ? 'password' : 'text';
}

/**
 * The bounds a number declares, as HTML min and max. A pattern is left to
 * the server: it is Go's RE2 syntax, which a browser's pattern attribute
 * may read differently.
 */
export function boundsOf(f: Pick<InputField, 'type' | 'min' | 'max'>): { min?: number; max?: number } {
  return f.type === 'int' ? { min: f.min, max: f.max } : {};
}

/**
 * A help sentence with the bounds a number declares, so the user sees
 * them before the server refuses a value.
 */
export function helpOf(f: Pick<InputField, 'help' | 'type' | 'min' | 'max'>): string | undefined {
  let bounds = '';
  if (f.type === 'int' && f.min !== undefined && f.max !== undefined) bounds = `${f.min} to ${f.max}`;
  else if (f.type === 'int' && f.min !== undefined) bounds = `at least ${f.min}`;
  else if (f.type === 'int' && f.max !== undefined) bounds = `at most ${f.max}`;
  const parts = [f.help, bounds && `(${bounds})`].filter(Boolean);
  return parts.length ? parts.join(' ') : undefined;
}

/** Fields under their group headings: by order (then as declared), groups in order of their first field. */
export function groupsOf(fields: InputField[]): { group: string; fields: InputField[] }[] {
  const sorted = fields.map((f, i) => ({ f, i })).sort((a, b) => a.f.order - b.f.order || a.i - b.i).map(({ f }) => f);
  const out: { group: string; fields: InputField[] }[] = [];
  for (const f of sorted) {
    const g = f.group ?? '';
    const at = out.find((x) => x.group === g);
    if (at) at.fields.push(f);
    else out.push({ group: g, fields: [f] });
  }
  return out;
}

/**
 * The stored credentials a credential field accepts (of any kind, when it
 * names none), of team when one is given: a team's clusters and
 * credentials may use only that team's credentials.
 */
export function credentialsFor(f: Pick<InputField, 'credentialKinds'>, creds: Credential[], team?: string): Credential[] {
  const kinds = f.credentialKinds ?? [];
  return creds.filter((c) => (!kinds.length || kinds.includes(c.kind)) && (!team || c.team === team));
}

/** Every credential kind the loaded plugins declare, once each (two plugins may share a kind), by display name. */
export function kindsOf(providers: Pick<Provider, 'credentialKinds'>[]): CredentialKind[] {
  const byName = new Map<string, CredentialKind>();
  for (const p of providers) for (const k of p.credentialKinds ?? []) if (!byName.has(k.name)) byName.set(k.name, k);
  return [...byName.values()].sort((a, b) => (a.displayName || a.name).localeCompare(b.displayName || b.name));
}

/** The kinds a credential field accepts, among those declared (all, when it names none). */
export function acceptedKinds(f: Pick<InputField, 'credentialKinds'>, kinds: CredentialKind[]): CredentialKind[] {
  const want = f.credentialKinds ?? [];
  return want.length ? kinds.filter((k) => want.includes(k.name)) : kinds;
}

/**
 * The values with every credential field emptied: what a form keeps when
 * its team changes, since a credential serves only its own team.
 */
export function withoutCredentials(fields: Pick<InputField, 'name' | 'type'>[], values: Record<string, string>): Record<string, string> {
  const out = { ...values };
  for (const f of fields) if (f.type === 'credential' && f.name in out) out[f.name] = '';
  return out;
}

/** The form's starting values: each field's default. */
export function defaultsOf(fields: InputField[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) if (f.name) out[f.name] = f.default ?? '';
  return out;
}

/**
 * The values to send for a kind: only its declared fields, and only those
 * filled in (the server refuses a field the kind does not declare).
 */
export function valuesFor(fields: InputField[], values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(fields.filter((f) => (values[f.name] ?? '') !== '').map((f) => [f.name, values[f.name]]));
}
