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
	// Cluster is the cluster the identity was resolved for: Role is the
	// caller's role there.
	Cluster string
	// Role is the caller's KubeOpera role on Cluster: a team role
	// ("viewer", "operator", "admin") or "platform-admin".
	Role string
	// UserID and Global are the caller's user ("" for a token an admin
	// issued) and global role, from which Role was derived; Valid derives
	// it again.
	UserID, Global string
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
	// or the session cookie) and returns who it is and its role on the
	// cluster with ID cluster. A *Refusal says why the caller is refused
	// (404 when the caller may not see that cluster).
	Authenticate(ctx context.Context, r *http.Request, cluster string) (Identity, error)
	// Valid reports whether id still holds: false once its credential is
	// revoked, expired or its user is gone, or its role on id.Cluster is
	// no longer id.Role (a membership changed).
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

// Groups returns the target groups of a KubeOpera role on a cluster, the
// one place roles become Kubernetes identities. An unknown role gets none
// (and so only what the target grants system:authenticated).
func Groups(role string) []string {
	switch role {
	case "viewer":
		return []string{GroupViewer}
	case "operator":
		return []string{GroupOperator}
	case "admin", AdminRole:
		return []string{GroupAdmin}
	}
	return nil
}

// openKey tells apart the open requests of one credential on different
// clusters, where its role may differ.
func (id Identity) openKey() string { return id.Credential + "\x00" + id.Cluster }
