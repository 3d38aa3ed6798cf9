package api

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ochestra-tech/kubeopera/server/credresolve"
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

// assumeRolesFrom returns the labels of the credentials that refer to id in
// a <prefix>CredentialRef field (the reference is inside their sealed
// payload), such as an assume_role credential's source.
func (s *server) assumeRolesFrom(ctx context.Context, id string) ([]string, error) {
	all, err := s.store.ListCredentials(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range all {
		if c.ID == id {
			continue
		}
		plain, err := s.keyring.Open(c.Ciphertext, c.KeyID, []byte(c.ID))
		if err != nil {
			return nil, fmt.Errorf("open credential %s to check its source: %w", c.ID, err)
		}
		var p credresolve.Payload
		if err := json.Unmarshal(plain, &p); err != nil {
			return nil, fmt.Errorf("decode credential %s: %w", c.ID, err)
		}
		for field, v := range p {
			if v == id && strings.HasSuffix(field, "CredentialRef") {
				out = append(out, fmt.Sprintf("%q (%s)", c.Label, c.Kind))
				break
			}
		}
	}
	return out, nil
}
