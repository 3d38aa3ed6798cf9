package k8sproxy

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// Identity is who sent a request through the proxy, as the server's own
// token and session checks found them.
type Identity struct {
	// User names the caller on the target (Impersonate-User is
	// UserPrefix+User) and in the audit log.
	User string
	// Role is the caller's KubeOpera role ("viewer", "platform-admin").
	Role string
	// TokenID is the API token's ID; "" for a session.
	TokenID string
	// Credential identifies what authenticated the request (a token ID or
	// a session's hash) for the periodic re-check of open requests; it is
	// never logged.
	Credential string
	// Expires is when the credential stops working; zero when it does not.
	Expires time.Time
}

// Authenticator is the server's token and session validation, shared with
// the REST API so both accept and refuse the same credentials.
type Authenticator interface {
	// Authenticate reads the caller's credential from r (a bearer token,
	// or the session cookie) and returns who it is. A *Refusal says why
	// the caller is refused.
	Authenticate(ctx context.Context, r *http.Request) (Identity, error)
	// Valid reports whether id's credential still authenticates: false
	// once it is revoked, expired or its user is gone.
	Valid(ctx context.Context, id Identity) (bool, error)
}

// Refusal is an answer the proxy gives instead of forwarding: an HTTP status
// and a message for the caller.
type Refusal struct {
	Status  int
	Message string
}

func (r *Refusal) Error() string { return r.Message }

// Refuse returns a *Refusal.
func Refuse(status int, message string) error { return &Refusal{Status: status, Message: message} }

// asRefusal turns err into the answer for the caller: a *Refusal as it
// is, anything else a 500 that does not repeat internal detail.
func asRefusal(err error) *Refusal {
	var r *Refusal
	if errors.As(err, &r) {
		return r
	}
	return &Refusal{Status: http.StatusInternalServerError, Message: "the proxy could not check this request; see the server's log"}
}

// UserPrefix starts every user name the proxy impersonates, so KubeOpera's
// users can never be mistaken for the target's own.
const UserPrefix = "kubeopera:"

// Groups of the target's RBAC that KubeOpera's roles map to. The GitOps
// tree binds them to the built-in ClusterRoles view, edit and
// cluster-admin (v1alpha1.AccessRoles).
const (
	GroupViewer   = v1alpha1.AccessGroupViewer
	GroupOperator = v1alpha1.AccessGroupOperator
	GroupAdmin    = v1alpha1.AccessGroupAdmin
)

// AdminRole is the KubeOpera role that may use the proxy subresources of
// nodes, services and pods.
const AdminRole = "platform-admin"

// Groups returns the target groups of a KubeOpera role, the one place
// roles become Kubernetes identities: an operator role and per-team roles
// add their mapping here. An unknown role gets none (and so only what the
// target grants system:authenticated).
func Groups(role string) []string {
	switch role {
	case "viewer":
		return []string{GroupViewer}
	case "operator":
		return []string{GroupOperator}
	case AdminRole:
		return []string{GroupAdmin}
	}
	return nil
}
