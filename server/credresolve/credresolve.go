// Package credresolve opens a stored cloud credential into what a provider
// plugin receives, just before the call; the REST server (Validate) and the
// controller (Provision, Status, Kubeconfig) share it.
package credresolve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/server/sealing"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// Payload is the sealed, secret part of a credential.
type Payload struct {
	AccessKeyID         string `json:"accessKeyId,omitempty"`
	SecretAccessKey     string `json:"secretAccessKey,omitempty"`
	RoleARN             string `json:"roleArn,omitempty"`
	ExternalID          string `json:"externalId,omitempty"`
	SourceCredentialRef string `json:"sourceCredentialRef,omitempty"`
}

// Resolver opens credentials from the store with the keyring.
type Resolver struct {
	Store   *store.Store
	Keyring *sealing.Keyring
}

// Resolve returns credential id as plugin credentials. An assume_role
// credential carries its source keys along. A credential that does not
// exist is an sdk.NotFound error; any other error may pass on retry.
func (r Resolver) Resolve(ctx context.Context, id string) (sdk.Credentials, error) {
	row, err := r.Store.GetCredential(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, sdk.NotFound("no stored cloud credential has ID %q", id)
	}
	if err != nil {
		return nil, err
	}
	plain, err := r.Keyring.Open(row.Ciphertext, row.KeyID, []byte(row.ID))
	if err != nil {
		return nil, fmt.Errorf("open credential %s: %w", row.ID, err)
	}
	var p Payload
	if err := json.Unmarshal(plain, &p); err != nil {
		return nil, fmt.Errorf("decode credential %s: %w", row.ID, err)
	}
	out := sdk.Credentials{"kind": row.Kind}
	switch row.Kind {
	case store.CredentialKindAccessKey:
		out["accessKeyId"], out["secretAccessKey"] = p.AccessKeyID, p.SecretAccessKey
	case store.CredentialKindAssumeRole:
		out["roleArn"], out["externalId"] = p.RoleARN, p.ExternalID
		src, err := r.Resolve(ctx, p.SourceCredentialRef)
		if err != nil {
			return nil, fmt.Errorf("source credential of %s: %w", row.ID, err)
		}
		out["sourceAccessKeyId"], out["sourceSecretAccessKey"] = src["accessKeyId"], src["secretAccessKey"]
	}
	return out, nil
}
