package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/ochestra-tech/kubeopera/internal/awscred"
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/server/credresolve"
	"github.com/ochestra-tech/kubeopera/server/sealing"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// credentialRequest is POST /credentials. The secret fields are accepted
// here and never returned by any route.
type credentialRequest struct {
	Label string `json:"label"`
	Kind  string `json:"kind"`
	// access_key
	AccessKeyID     string `json:"accessKeyId"`
	SecretAccessKey string `json:"secretAccessKey"`
	// assume_role
	RoleARN             string `json:"roleArn"`
	ExternalID          string `json:"externalId"`
	SourceCredentialRef string `json:"sourceCredentialRef"`
}

// payload is what is sealed: the secret part of a credential.
type payload = credresolve.Payload

var (
	labelRE = regexp.MustCompile(`^[\w .:-]{1,64}$`)
)

func (s *server) checkCredential(c *fiber.Ctx, r credentialRequest) error {
	var checks []*FieldProblem
	if !labelRE.MatchString(r.Label) {
		checks = append(checks, &FieldProblem{"label", "must be 1 to 64 letters, digits, spaces or . _ : -"})
	}
	switch r.Kind {
	case store.CredentialKindAccessKey:
		if !awscred.AccessKeyID(r.AccessKeyID) {
			checks = append(checks, &FieldProblem{"accessKeyId", awscred.BadAccessKeyID})
		}
		if !awscred.SecretAccessKey(r.SecretAccessKey) {
			checks = append(checks, &FieldProblem{"secretAccessKey", awscred.BadSecretAccessKey})
		}
	case store.CredentialKindAssumeRole:
		if !awscred.RoleARN(r.RoleARN) {
			checks = append(checks, &FieldProblem{"roleArn", awscred.BadRoleARN})
		}
		src, err := s.store.GetCredential(c.UserContext(), r.SourceCredentialRef)
		if err != nil || src.Kind != store.CredentialKindAccessKey {
			checks = append(checks, &FieldProblem{"sourceCredentialRef", "must be the ID of a stored access_key credential to assume the role with"})
		}
	default:
		checks = append(checks, &FieldProblem{"kind", "must be access_key or assume_role"})
	}
	return collect(checks...)
}

func (s *server) createCredential(c *fiber.Ctx) error {
	var r credentialRequest
	if err := bindJSON(c, &r); err != nil {
		return err
	}
	if err := s.checkCredential(c, r); err != nil {
		return err
	}
	plain := mustJSON(payload{AccessKeyID: r.AccessKeyID, SecretAccessKey: r.SecretAccessKey, RoleARN: r.RoleARN,
		ExternalID: r.ExternalID, SourceCredentialRef: r.SourceCredentialRef})
	id := uuid.NewString()
	// The row ID is the additional data, so a ciphertext moved to another
	// row does not open.
	sealed, keyID, err := s.keyring.Seal(plain, []byte(id))
	if err != nil {
		return fmt.Errorf("seal credential: %w", err)
	}
	row := &store.Credential{ID: id, Label: r.Label, Kind: r.Kind, Ciphertext: sealed, KeyID: keyID,
		Last4: sealing.Last4(shownPart(r)), CreatedBy: who(c).Name}
	if err := s.store.CreateCredential(c.UserContext(), row); err != nil {
		return err
	}
	return c.Status(http.StatusCreated).JSON(row)
}

func (s *server) listCredentials(c *fiber.Ctx) error {
	rows, err := s.store.ListCredentials(c.UserContext())
	if err != nil {
		return err
	}
	if rows == nil {
		rows = []store.Credential{}
	}
	return c.JSON(fiber.Map{"items": rows})
}

func (s *server) getCredential(c *fiber.Ctx) error {
	row, err := s.store.GetCredential(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(row)
}

func (s *server) deleteCredential(c *fiber.Ctx) error {
	ctx := c.UserContext()
	row, err := s.store.GetCredential(ctx, c.Params("id"))
	if err != nil {
		return err
	}
	users, err := s.credentialUsers(ctx, row.ID)
	if err != nil {
		return err
	}
	if users != "" {
		return problem(http.StatusConflict, "credential %q is still needed by %s; delete or change those first", row.Label, users)
	}
	if err := s.store.DeleteCredential(ctx, row.ID); err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

// resolveCredentials opens a stored credential into what a provider
// plugin receives.
func (s *server) resolveCredentials(c *fiber.Ctx, id string) (sdk.Credentials, error) {
	return credresolve.Resolver{Store: s.store, Keyring: s.keyring}.Resolve(c.UserContext(), id)
}

// updateCredential changes a credential's label and/or secret fields. The
// payload is re-sealed with the primary key, so an update also moves a
// credential off a retired key.
func (s *server) updateCredential(c *fiber.Ctx) error {
	ctx := c.UserContext()
	row, err := s.store.GetCredential(ctx, c.Params("id"))
	if err != nil {
		return err
	}
	plain, err := s.keyring.Open(row.Ciphertext, row.KeyID, []byte(row.ID))
	if err != nil {
		return fmt.Errorf("open credential %s: %w", row.ID, err)
	}
	var p payload
	if err := json.Unmarshal(plain, &p); err != nil {
		return fmt.Errorf("decode credential %s: %w", row.ID, err)
	}
	// Start from the stored values; the request overrides what it sets.
	r := credentialRequest{Label: row.Label, Kind: row.Kind, AccessKeyID: p.AccessKeyID, SecretAccessKey: p.SecretAccessKey,
		RoleARN: p.RoleARN, ExternalID: p.ExternalID, SourceCredentialRef: p.SourceCredentialRef}
	if err := bindJSON(c, &r); err != nil {
		return err
	}
	if r.Kind != row.Kind {
		return invalid(FieldProblem{"kind", "cannot change; create a new credential of the other kind"})
	}
	if err := s.checkCredential(c, r); err != nil {
		return err
	}
	if r.SourceCredentialRef == row.ID {
		return invalid(FieldProblem{"sourceCredentialRef", "cannot be the credential itself"})
	}
	sealed, keyID, err := s.keyring.Seal(mustJSON(payload{AccessKeyID: r.AccessKeyID, SecretAccessKey: r.SecretAccessKey,
		RoleARN: r.RoleARN, ExternalID: r.ExternalID, SourceCredentialRef: r.SourceCredentialRef}), []byte(row.ID))
	if err != nil {
		return fmt.Errorf("seal credential: %w", err)
	}
	row.Label, row.Ciphertext, row.KeyID, row.Last4 = r.Label, sealed, keyID, sealing.Last4(shownPart(r))
	if err := s.store.UpdateCredential(ctx, row); err != nil {
		return err
	}
	return c.JSON(row)
}

// shownPart is the non-secret field whose last characters identify a
// credential in lists.
func shownPart(r credentialRequest) string {
	if r.Kind == store.CredentialKindAssumeRole {
		return r.RoleARN
	}
	return r.AccessKeyID
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain strings: cannot fail
	}
	return b
}
