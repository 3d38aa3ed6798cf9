package api

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/server/credresolve"
	"github.com/ochestra-tech/kubeopera/server/sealing"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// credentialRequest is POST /credentials: a label, a kind some loaded
// plugin declares, and the kind's fields. The fields may also be given at
// the top level ({"kind":"access_key","accessKeyId":...}), as before kinds
// were declared by plugins. Field values are never returned by any route.
type credentialRequest struct {
	Label string `json:"label"`
	// Team owns the credential; "default" when left out. It cannot change.
	Team   string            `json:"team,omitempty"`
	Kind   string            `json:"kind"`
	Fields map[string]string `json:"fields,omitempty"`
}

// UnmarshalJSON accepts the fields nested or at the top level.
func (r *credentialRequest) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if r.Fields == nil {
		r.Fields = map[string]string{}
	}
	for k, v := range raw {
		var err error
		switch k {
		case "label":
			err = json.Unmarshal(v, &r.Label)
		case "kind":
			err = json.Unmarshal(v, &r.Kind)
		case "team":
			err = json.Unmarshal(v, &r.Team)
		case "fields":
			var f map[string]string
			err = json.Unmarshal(v, &f)
			for fk, fv := range f {
				r.Fields[fk] = fv
			}
		default:
			var s string
			err = json.Unmarshal(v, &s)
			r.Fields[k] = s
		}
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

// payload is what is sealed: every field of a credential.
type payload = credresolve.Payload

var labelRE = regexp.MustCompile(`^[\w .:-]{1,64}$`)

// credentialKinds returns every credential kind the loaded plugins declare,
// by name; the first plugin (by name) to declare a kind defines it.
func (s *server) credentialKinds() map[string]sdk.CredentialKind {
	kinds := map[string]sdk.CredentialKind{}
	for _, p := range s.providers.Plugins() {
		for _, k := range p.Info.CredentialKinds {
			if _, ok := kinds[k.Name]; !ok {
				kinds[k.Name] = k
			}
		}
	}
	return kinds
}

// checkCredential checks r against its kind's declaration; self is the ID
// of the credential being updated ("" on create).
func (s *server) checkCredential(c *fiber.Ctx, r credentialRequest, self string) (sdk.CredentialKind, error) {
	var checks []*FieldProblem
	if !labelRE.MatchString(r.Label) || strings.TrimSpace(r.Label) != r.Label {
		checks = append(checks, &FieldProblem{"label", "must be 1 to 64 letters, digits, spaces or . _ : -, not starting or ending with a space"})
	}
	checks = append(checks, checkFieldValues(r.Fields)...)
	kinds := s.credentialKinds()
	kind, ok := kinds[r.Kind]
	if !ok {
		names := make([]string, 0, len(kinds))
		for n := range kinds {
			names = append(names, n)
		}
		slices.Sort(names)
		checks = append(checks, &FieldProblem{"kind", "must be a kind a loaded provider plugin accepts: " +
			orNone(strings.Join(names, ", "))})
		return kind, collect(checks...)
	}
	for _, e := range sdk.CheckFields("", kind.Fields, r.Fields) {
		checks = append(checks, &FieldProblem{e.Field, e.Message})
	}
	for _, f := range kind.Fields {
		if v := r.Fields[f.Name]; f.Type == sdk.CredentialRef && v != "" {
			checks = append(checks, s.checkReference(c, f, v, self, r.Team))
		}
	}
	return kind, collect(checks...)
}

// maxCredentialField bounds one field of a credential; cloud keys,
// secrets and ARNs are far shorter, a PEM key or JSON key file fits.
const maxCredentialField = 8 << 10

// checkFieldValues refuses field values no cloud credential has: over
// maxCredentialField bytes, invalid UTF-8, control characters other than
// line breaks and tabs (a PEM or JSON key has those; NUL no key has), or
// nothing but white space.
func checkFieldValues(fields map[string]string) []*FieldProblem {
	var out []*FieldProblem
	names := slices.Sorted(maps.Keys(fields))
	for _, k := range names {
		v := fields[k]
		switch {
		case len(v) > maxCredentialField:
			out = append(out, &FieldProblem{k, fmt.Sprintf("must be at most %d bytes, got %d", maxCredentialField, len(v))})
		case !utf8.ValidString(v) || strings.IndexFunc(v, badControl) >= 0:
			out = append(out, &FieldProblem{k, "must be text without control characters such as NUL (line breaks and tabs are allowed)"})
		case v != "" && strings.TrimSpace(v) == "":
			out = append(out, &FieldProblem{k, "must not be only white space"})
		}
	}
	return out
}

func badControl(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' }

// checkReference checks a field naming another stored credential.
// It must be of team, the referring credential's.
func (s *server) checkReference(c *fiber.Ctx, f sdk.InputField, id, self, team string) *FieldProblem {
	want := "must be the ID of a stored " + orNone(strings.Join(f.CredentialKinds, " or ")) + " credential of team " + team
	if id == self {
		return &FieldProblem{f.Name, "cannot be the credential itself; " + want}
	}
	src, err := s.store.GetCredential(c.UserContext(), id)
	if err != nil || src.Team != team || len(f.CredentialKinds) > 0 && !slices.Contains(f.CredentialKinds, src.Kind) {
		return &FieldProblem{f.Name, want}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none: no loaded plugin declares a credential kind)"
	}
	return s
}

func (s *server) createCredential(c *fiber.Ctx) error {
	var r credentialRequest
	if err := bindJSON(c, &r); err != nil {
		return err
	}
	if err := s.teamOf(c, &r.Team); err != nil {
		return err
	}
	kind, err := s.checkCredential(c, r, "")
	if err != nil {
		return err
	}
	row := &store.Credential{ID: uuid.NewString(), Label: r.Label, Team: r.Team, Kind: r.Kind, CreatedBy: who(c).Name}
	if err := s.seal(row, kind, r.Fields); err != nil {
		return err
	}
	if err := s.store.CreateCredential(c.UserContext(), row, s.auditedWith(c, http.StatusCreated)); err != nil {
		c.Locals(auditedKey, nil) // not stored: the middleware records the failure
		return err
	}
	return c.Status(http.StatusCreated).JSON(row)
}

// seal seals every field of a credential into row. The row ID is the
// additional data, so a ciphertext moved to another row does not open.
func (s *server) seal(row *store.Credential, kind sdk.CredentialKind, fields map[string]string) error {
	p := payload{}
	for k, v := range fields {
		if v != "" {
			p[k] = v
		}
	}
	sealed, keyID, err := s.keyring.Seal(mustJSON(p), []byte(row.ID))
	if err != nil {
		return fmt.Errorf("seal credential: %w", err)
	}
	row.Ciphertext, row.KeyID, row.Last4, row.SourceID = sealed, keyID, "", nil
	for _, f := range kind.Fields {
		if v := fields[f.Name]; f.Type == sdk.CredentialRef && v != "" {
			row.SourceID = &v
			break
		}
	}
	if kind.Last4Field != "" {
		row.Last4 = sealing.Last4(fields[kind.Last4Field])
	}
	return nil
}

// listCredentials is GET /credentials: those of the teams the caller
// administers (every team's for a platform admin).
func (s *server) listCredentials(c *fiber.Ctx) error {
	rows, err := s.store.ListCredentials(c.UserContext())
	if err != nil {
		return err
	}
	admins, err := s.teamsAdministered(c)
	if err != nil {
		return err
	}
	out := make([]store.Credential, 0, len(rows))
	for _, r := range rows {
		if admins == nil || admins[r.Team] {
			out = append(out, r)
		}
	}
	return c.JSON(credentialList{Items: out})
}

// teamsAdministered is the set of teams on which the caller has the admin
// role; nil for a platform admin, who administers every team.
func (s *server) teamsAdministered(c *fiber.Ctx) (map[string]bool, error) {
	p := who(c)
	if p.Role == PlatformAdmin {
		return nil, nil
	}
	out := map[string]bool{}
	if p.UserID == "" {
		return out, nil
	}
	ms, err := s.memberships(c)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		if m.Role.AtLeast(Admin) {
			out[m.Team] = true
		}
	}
	return out, nil
}

// credentialList is GET /credentials.
type credentialList struct {
	Items []store.Credential `json:"items"`
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
	if err := s.store.DeleteCredential(ctx, row.ID, s.auditedWith(c, http.StatusNoContent)); err != nil {
		c.Locals(auditedKey, nil) // not stored: the middleware records the failure
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

// resolveCredentials opens a stored credential into what a provider
// plugin receives.
func (s *server) resolveCredentials(c *fiber.Ctx, id string) (sdk.Credentials, error) {
	return credresolve.Resolver{Store: s.store, Keyring: s.keyring}.Resolve(c.UserContext(), id)
}

// updateCredential changes a credential's label and/or fields. The payload
// is re-sealed with the primary key, so an update also moves a credential
// off a retired key.
func (s *server) updateCredential(c *fiber.Ctx) error {
	ctx := c.UserContext()
	row, stored, err := credresolve.Resolver{Store: s.store, Keyring: s.keyring}.Open(ctx, c.Params("id"))
	if err != nil {
		if sdk.KindOf(err) == sdk.KindNotFound {
			return fmt.Errorf("credential %q: %w", c.Params("id"), store.ErrNotFound)
		}
		return err
	}
	// Start from the stored values; the request overrides what it sets.
	r := credentialRequest{Label: row.Label, Team: row.Team, Kind: row.Kind, Fields: map[string]string(stored)}
	if err := bindJSON(c, &r); err != nil {
		return err
	}
	if r.Kind != row.Kind {
		return invalid(FieldProblem{"kind", "cannot change; create a new credential of the other kind"})
	}
	if r.Team != row.Team {
		return invalid(FieldProblem{"team", "cannot change; create the credential again in the other team"})
	}
	kind, err := s.checkCredential(c, r, row.ID)
	if err != nil {
		return err
	}
	if err := s.seal(row, kind, r.Fields); err != nil {
		return err
	}
	row.Label = r.Label
	if err := s.store.UpdateCredential(ctx, row); err != nil {
		return err
	}
	return c.JSON(row)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain strings: cannot fail
	}
	return b
}
