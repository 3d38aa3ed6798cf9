package hostenv

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// Call is what the plugin calls for one cluster carry, built once from the
// inputs a user asked for (BuildCall). The server validates with it and
// records it; the controller makes every later call of the cluster with it.
type Call struct {
	// Requested are the inputs as the user sent them: Validate gets these.
	Requested map[string]string
	// Inputs are Requested with the schema's defaults applied: Provision,
	// Update and Destroy get these.
	Inputs map[string]string
	// Plain and Secret split Inputs by the schema's Secret flag: the host
	// keeps the secret ones in a Kubernetes Secret, never in the
	// HostCluster, and joins them again for each call.
	Plain, Secret map[string]string
	// CredentialRef is the ID of the stored credential the schema's
	// credential input (type sdk.CredentialRef) names; "" for none.
	CredentialRef string
	// Credentials are that credential as the plugin receives it (see
	// Credential); nil for none.
	Credentials sdk.Credentials
}

// OpenCredential returns the stored credential id as a plugin receives it
// (see Credential). An id nothing is stored under is an sdk.NotFound error.
type OpenCredential func(ctx context.Context, id string) (sdk.Credentials, error)

// Credential is a stored credential of kind with field values fields as a
// plugin receives it: every field, plus "kind" naming the kind. A plugin that
// checks the keys it gets must allow "kind".
func Credential(kind string, fields map[string]string) sdk.Credentials {
	out := make(sdk.Credentials, len(fields)+1)
	maps.Copy(out, fields)
	out["kind"] = kind
	return out
}

// BuildCall builds the call for the inputs requested of the provider info
// describes: the schema's defaults applied, the credential the credential
// input names opened with open and checked to be of a kind that input
// accepts, the secret inputs set apart. A credential that does not exist or
// is of the wrong kind is an sdk.InvalidInput error naming the input, as
// the server answers it (400); open's other errors come back as they are.
func BuildCall(ctx context.Context, info sdk.Info, requested map[string]string, open OpenCredential) (Call, error) {
	c := Call{Requested: requested, Inputs: sdk.WithDefaults(info.Schema, requested)}
	c.Plain, c.Secret = splitSecret(info.Schema, c.Inputs)
	field, ok := sdk.CredentialInput(info.Schema)
	if !ok || c.Inputs[field.Name] == "" {
		return c, nil
	}
	ref, path := c.Inputs[field.Name], "inputs."+field.Name
	creds, err := open(ctx, ref)
	if errors.Is(err, sdk.ErrNotFound) {
		return Call{}, sdk.InvalidInput(sdk.FieldError{Field: path,
			Message: "no stored cloud credential has this ID (see GET /api/v1/credentials)"})
	} else if err != nil {
		return Call{}, err
	}
	if len(field.CredentialKinds) > 0 && !slices.Contains(field.CredentialKinds, creds["kind"]) {
		return Call{}, sdk.InvalidInput(sdk.FieldError{Field: path, Message: fmt.Sprintf("is a %s credential; this provider takes %s",
			creds["kind"], strings.Join(field.CredentialKinds, " or "))})
	}
	c.CredentialRef, c.Credentials = ref, creds
	return c, nil
}

// ValidateRequest is the Validate call the server makes before it records
// a cluster.
func (c Call) ValidateRequest() sdk.ValidateRequest {
	return sdk.ValidateRequest{Inputs: c.Requested, Credentials: c.Credentials}
}

// ProvisionRequest is the Provision call the controller makes for cluster id.
func (c Call) ProvisionRequest(id string) sdk.ProvisionRequest {
	return sdk.ProvisionRequest{ClusterID: id, Inputs: c.Inputs, Credentials: c.Credentials}
}

// DestroyRequest is the Destroy call the controller makes for cluster id:
// the plain inputs only (the HostCluster's; the Secret of the secret ones
// may be gone by the time a cluster is torn down).
func (c Call) DestroyRequest(id string) sdk.DestroyRequest {
	return sdk.DestroyRequest{ClusterID: id, Inputs: c.Plain, Credentials: c.Credentials}
}

// CurrentInputs are a cluster's inputs as it is now, which an Update
// carries: inputs (those it was provisioned with) with info's node-count
// input set to nodes and its version input to version, where the host
// observed them (nodes > 0, version != "").
func CurrentInputs(info sdk.Info, inputs map[string]string, nodes int, version string) map[string]string {
	out := maps.Clone(inputs)
	if out == nil {
		out = map[string]string{}
	}
	if info.NodeCountInput != "" && nodes > 0 {
		out[info.NodeCountInput] = strconv.Itoa(nodes)
	}
	if info.VersionInput != "" && version != "" {
		out[info.VersionInput] = version
	}
	return out
}

// splitSecret takes the inputs the schema declares secret out of inputs.
func splitSecret(schema []sdk.InputField, inputs map[string]string) (plain, secret map[string]string) {
	plain, secret = map[string]string{}, map[string]string{}
	isSecret := map[string]bool{}
	for _, f := range schema {
		isSecret[f.Name] = f.Secret
	}
	for k, v := range inputs {
		if isSecret[k] {
			secret[k] = v
		} else {
			plain[k] = v
		}
	}
	return plain, secret
}
