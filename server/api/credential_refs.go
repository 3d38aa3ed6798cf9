package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/ochestra-tech/kubeopera/server/credresolve"
	"github.com/ochestra-tech/kubeopera/server/sealing"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// credentialUsers names what still needs credential id: every cluster that
// references it, in any phase (a Ready EKS cluster refreshes its token with
// it; a teardown destroys with it), and every credential that names it in a
// <prefix>CredentialRef field (an assume_role credential's source). "" when
// nothing does.
func (s *server) credentialUsers(ctx context.Context, id string) (string, error) {
	clusters, err := s.store.ClustersUsingCredential(ctx, id, nil)
	if err != nil {
		return "", err
	}
	var parts []string
	if len(clusters) > 0 {
		names := make([]string, len(clusters))
		for i, c := range clusters {
			names[i] = fmt.Sprintf("%s (%s)", c.Name, c.Status)
		}
		parts = append(parts, "clusters "+strings.Join(names, ", "))
	}
	roles, err := s.assumeRolesFrom(ctx, id)
	if err != nil {
		return "", err
	}
	if len(roles) > 0 {
		parts = append(parts, "credentials "+strings.Join(roles, ", "))
	}
	return strings.Join(parts, "; "), nil
}

// assumeRolesFrom returns the labels of the credentials made from id (its
// source_id), such as an assume_role credential's source.
func (s *server) assumeRolesFrom(ctx context.Context, id string) ([]string, error) {
	from, err := s.store.CredentialsFrom(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(from))
	for i, c := range from {
		out[i] = fmt.Sprintf("%q (%s)", c.Label, c.Kind)
	}
	return out, nil
}

// RecordCredentialSources fills in the source_id column of the stored
// credentials from the <prefix>CredentialRef field of their sealed
// payloads: rows sealed before the column existed had their source only
// there. The server runs it at start; it changes nothing when every row
// is up to date. A source deleted long ago is left unrecorded and logged.
func RecordCredentialSources(ctx context.Context, st *store.Store, keys *sealing.Keyring, log *slog.Logger) error {
	all, err := st.ListCredentials(ctx)
	if err != nil {
		return err
	}
	for _, c := range all {
		plain, err := keys.Open(c.Ciphertext, c.KeyID, []byte(c.ID))
		if err != nil {
			return fmt.Errorf("open credential %s to record its source: %w", c.ID, err)
		}
		var p credresolve.Payload
		if err := json.Unmarshal(plain, &p); err != nil {
			return fmt.Errorf("decode credential %s: %w", c.ID, err)
		}
		src := payloadSource(p)
		if src == "" || (c.SourceID != nil && *c.SourceID == src) {
			continue
		}
		var conflict *store.ConflictError
		if err := st.SetCredentialSource(ctx, c.ID, &src); errors.As(err, &conflict) {
			log.Warn("credential names a source that no longer exists", "credential", c.ID, "source", src)
		} else if err != nil {
			return err
		}
	}
	return nil
}

// payloadSource is the credential a payload names in a field ending in
// CredentialRef (sdk.ReferencePrefix), the first by name; "" when none.
func payloadSource(p credresolve.Payload) string {
	fields := make([]string, 0, len(p))
	for f := range p {
		if strings.HasSuffix(f, "CredentialRef") && p[f] != "" {
			fields = append(fields, f)
		}
	}
	slices.Sort(fields)
	if len(fields) == 0 {
		return ""
	}
	return p[fields[0]]
}
