import { describe, expect, it } from 'vitest';
import type { Credential, InputField, Provider } from '../api/client';
import { acceptedKinds, boundsOf, controlOf, credentialsFor, defaultsOf, groupsOf, helpOf, kindsOf, labelOf, valuesFor, withoutCredentials } from './fields';

/** A declared field: the SDK's zero values, then the given ones. */
const field = (f: Partial<InputField> & { name: string }): InputField => ({ type: 'string', help: '', label: '', order: 0, required: false, secret: false, ...f });
const cred = (id: string, kind: string, team = 'default'): Credential => ({ id, kind, team, label: id, key_id: '', last4: '1234', created_at: '', created_by: '', updated_at: '' });
const kind = (name: string, displayName = ''): Provider['credentialKinds'][number] => ({ name, displayName, help: '', fields: [] });

describe('labelOf', () => {
  it('uses the declared label', () => expect(labelOf(field({ name: 'nodes', label: 'Worker nodes' }))).toBe('Worker nodes'));
  it('falls back to the name in words', () => expect(labelOf(field({ name: 'instanceType' }))).toBe('Instance type'));
  it('takes a label equal to the name (the API\'s fallback) as none', () => {
    expect(labelOf(field({ name: 'instanceType', label: 'instanceType' }))).toBe('Instance type');
    expect(labelOf(field({ name: 'credentialRef', label: 'credentialRef', type: 'credential' }))).toBe('Cloud credential');
  });
  it('calls an unlabelled credential field a cloud credential', () =>
    expect(labelOf(field({ name: 'credentialRef', type: 'credential' }))).toBe('Cloud credential'));
});

describe('controlOf', () => {
  it.each<[Partial<InputField>, string]>([
    [{ type: 'credential' }, 'credential'],
    [{ type: 'string', allowed: ['fsn1', 'nbg1'] }, 'select'],
    [{ type: 'bool' }, 'checkbox'],
    [{ type: 'int' }, 'number'],
    [{ type: 'string', multiline: true }, 'textarea'],
    [{ type: 'string', secret: true }, 'password'],
    [{ type: 'string' }, 'text'],
  ])('%o → %s', (f, want) => expect(controlOf(field({ name: 'x', ...f }))).toBe(want));

  it('chooses by type, not by name: a field named token of type credential is a picker', () => {
    expect(controlOf(field({ name: 'token', type: 'credential' }))).toBe('credential');
    expect(controlOf(field({ name: 'credentialRef', type: 'string' }))).toBe('text');
  });
});

describe('bounds and help', () => {
  it('gives an int its min and max, a string none', () => {
    expect(boundsOf(field({ name: 'n', type: 'int', min: 1, max: 5 }))).toEqual({ min: 1, max: 5 });
    expect(boundsOf(field({ name: 's', min: 1, max: 5 }))).toEqual({});
  });
  it.each<[Partial<InputField>, string | undefined]>([
    [{ type: 'int', min: 1, max: 5, help: 'worker nodes' }, 'worker nodes (1 to 5)'],
    [{ type: 'int', min: 0 }, '(at least 0)'],
    [{ type: 'int', max: 9, help: 'h' }, 'h (at most 9)'],
    [{ type: 'string', help: 'h' }, 'h'],
    [{ type: 'string' }, undefined],
  ])('%o → %s', (f, want) => expect(helpOf(field({ name: 'x', ...f }))).toBe(want));
});

describe('groupsOf', () => {
  it('orders by order, then as declared, groups in order of their first field', () => {
    const fs = [
      field({ name: 'b', order: 2, group: 'Networking' }),
      field({ name: 'a', order: 1 }),
      field({ name: 'c', order: 2 }),
      field({ name: 'd', order: 3, group: 'Networking' }),
      field({ name: 'e', order: 0, group: 'Access' }),
    ];
    expect(groupsOf(fs).map((g) => [g.group, g.fields.map((f) => f.name)])).toEqual([
      ['Access', ['e']], ['', ['a', 'c']], ['Networking', ['b', 'd']],
    ]);
  });
});

describe('credentials and kinds', () => {
  const creds = [cred('k1', 'access_key'), cred('r1', 'assume_role'), cred('t1', 'hello_token')];
  it('lists only credentials of the kinds a field accepts', () => {
    expect(credentialsFor(field({ name: 'token', type: 'credential', credentialKinds: ['hello_token'] }), creds).map((c) => c.id)).toEqual(['t1']);
    expect(credentialsFor(field({ name: 'c', type: 'credential' }), creds)).toHaveLength(3);
  });
  it('lists only the given team\'s credentials, every team\'s when none is given', () => {
    const mixed = [...creds, cred('k2', 'access_key', 'payments')];
    const key = field({ name: 'c', type: 'credential', credentialKinds: ['access_key'] });
    expect(credentialsFor(key, mixed, 'payments').map((c) => c.id)).toEqual(['k2']);
    expect(credentialsFor(key, mixed, 'default').map((c) => c.id)).toEqual(['k1']);
    expect(credentialsFor(key, mixed).map((c) => c.id)).toEqual(['k1', 'k2']);
    expect(credentialsFor(field({ name: 'c', type: 'credential' }), mixed, 'nobody')).toEqual([]);
  });
  it('collects each declared kind once, by display name', () => {
    const aws = [kind('access_key', 'AWS access key'), kind('assume_role', 'AWS role to assume')];
    const ks = kindsOf([{ credentialKinds: aws }, { credentialKinds: [kind('hello_token', 'Hello API token')] }, { credentialKinds: aws }]);
    expect(ks.map((k) => k.name)).toEqual(['access_key', 'assume_role', 'hello_token']);
  });
  it('offers inline only the kinds the field accepts', () => {
    const ks = [kind('access_key'), kind('assume_role'), kind('hello_token')];
    expect(acceptedKinds(field({ name: 't', credentialKinds: ['hello_token'] }), ks).map((k) => k.name)).toEqual(['hello_token']);
    expect(acceptedKinds(field({ name: 't' }), ks)).toHaveLength(3);
  });
});

describe('values', () => {
  it('starts from the defaults', () => {
    expect(defaultsOf([field({ name: 'nodes', default: '1' }), field({ name: 'zone' })])).toEqual({ nodes: '1', zone: '' });
  });
  it('sends only the declared fields that are filled in', () => {
    const fs = [field({ name: 'roleArn' }), field({ name: 'externalId' })];
    expect(valuesFor(fs, { roleArn: 'arn', externalId: '', accessKeyId: 'AKIA' })).toEqual({ roleArn: 'arn' });
  });
});

describe('withoutCredentials', () => {
  it('empties the credential fields only, when the team changes', () => {
    const fields = [field({ name: 'cred', type: 'credential' }), field({ name: 'region' })];
    expect(withoutCredentials(fields, { cred: 'k1', region: 'eu-north-1' })).toEqual({ cred: '', region: 'eu-north-1' });
  });
});
