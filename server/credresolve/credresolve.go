// Package credresolve opens a stored cloud credential into what a provider
// plugin receives, just before the call; the REST server (Validate) and the
// controller (Provision, Status, Kubeconfig) share it. It knows no cloud:
// a credential is the field values its kind declares, plus "kind".
package credresolve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/hostenv"
	"github.com/ochestra-tech/kubeopera/server/sealing"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// Payload is the sealed part of a credential: its field values by name.
type Payload map[string]string

// Resolver opens credentials from the store with the keyring.
type Resolver struct {
	Store   *store.Store
	Keyring *sealing.Keyring
}

// Resolve returns credential id as plugin credentials: "kind" and every
// field. A field named <prefix>CredentialRef refers to another stored
// credential, whose fields come along as <prefix><Field> (see
// sdk.CredentialKind). An empty id is no credential. A credential that does
// not exist is an sdk.NotFound error; any other error may pass on retry.
func (r Resolver) Resolve(ctx context.Context, id string) (sdk.Credentials, error) {
	if id == "" {
		return nil, nil
	}
	return r.resolve(ctx, id, true)
}

func (r Resolver) resolve(ctx context.Context, id string, follow bool) (sdk.Credentials, error) {
	row, p, err := r.Open(ctx, id)
	if err != nil {
		return nil, err
	}
	out := hostenv.Credential(row.Kind, p)
	for k, v := range p {
		prefix := sdk.ReferencePrefix(k)
		if !follow || prefix == k || v == "" {
			continue
		}
		src, err := r.resolve(ctx, v, false)
		if err != nil {
			return nil, fmt.Errorf("credential %s named by %s of %s: %w", v, k, row.ID, err)
		}
		for sk, sv := range src {
			if sk != "kind" {
				out[prefix+upperFirst(sk)] = sv
			}
		}
	}
	return out, nil
}

// Open returns the row of credential id and its opened payload.
func (r Resolver) Open(ctx context.Context, id string) (*store.Credential, Payload, error) {
	row, err := r.Store.GetCredential(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, sdk.NotFound("no stored cloud credential has ID %q", id)
	}
	if err != nil {
		return nil, nil, err
	}
	plain, err := r.Keyring.Open(row.Ciphertext, row.KeyID, []byte(row.ID))
	if err != nil {
		return nil, nil, fmt.Errorf("open credential %s: %w", row.ID, err)
	}
	var p Payload
	if err := json.Unmarshal(plain, &p); err != nil {
		return nil, nil, fmt.Errorf("decode credential %s: %w", row.ID, err)
	}
	return row, p, nil
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
