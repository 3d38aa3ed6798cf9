package pipeline

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
	"github.com/ochestra-tech/kubeopera/host/step"
)

// adminStateAnnotation records on the password Secret whether the admin
// was created, so a restarted controller never calls the endpoint again.
const adminStateAnnotation = "kubeopera.io/admin-state"

// The admin states.
const (
	adminPending = "pending" // password generated and kept; the call may or may not have happened
	adminCreated = "created" // the installed KubeOpera answered 201
	adminExisted = "existed" // it answered 409: someone else's admin is there
)

// setupPath is the installed server's once-only first-admin endpoint.
const setupPath = "/api/v1/setup/admin"

// createAdmin creates the first super-admin on the newly installed
// KubeOpera, once: the generated password is stored on the host before the
// call and the outcome recorded on that Secret afterwards.
func (p *Pipeline) createAdmin(ctx context.Context, hc *v1.HostCluster, t *target) error {
	if hc.Spec.AdminEmail == "" || hc.Spec.AdminUsername == "" {
		hc.SetCondition(v1.ConditionAdminCreated, metav1.ConditionFalse, v1.ReasonSkipped,
			"first admin not created: set adminEmail and adminUsername to have one created")
		return nil
	}
	if p.o.AdminURL == nil {
		// The service proxy dials the server's pod address; on a kwok node
		// that address exists nowhere, so learn that by reading first.
		node, err := simulatedServerNode(ctx, t.client)
		if err != nil {
			return p.adminRetry(hc, "creating the first admin: %v", err)
		}
		if node != "" {
			return adminDone(hc, metav1.ConditionFalse, v1.ReasonSimulated, "first admin not created: the KubeOpera server runs on node %s, "+
				"a kwok node whose pods are simulated with made-up addresses, so no call was made (the API server's service proxy would dial "+
				"an address that exists nowhere); on a cluster with real nodes the admin is created through that proxy", node)
		}
	}
	name := v1.AdminPasswordSecretName(hc.Name)
	s, err := p.adminSecret(ctx, hc, name)
	if err != nil {
		return err
	}
	hc.Status.AdminPasswordSecretRef = name
	switch s.Annotations[adminStateAnnotation] {
	case adminCreated:
		return adminWasCreated(hc, s)
	case adminExisted:
		return adminDone(hc, metav1.ConditionFalse, v1.ReasonAlreadyExists, "first admin not created: the installed KubeOpera already had an administrator")
	}
	setup, err := p.setupSecret(ctx, hc)
	if err != nil {
		return err
	}
	base, httpClient, err := p.adminEndpoint(hc, t)
	if err != nil {
		return step.Stall(v1.ReasonInvalidKubeconfig, "kubeconfig: cannot reach the installed KubeOpera through the API server: %v", err)
	}
	url := base + setupPath
	a, err := p.postAdmin(ctx, httpClient, url, hc, s.Data["password"], setup)
	if err != nil {
		return p.adminRetry(hc, "creating the first admin at %s: %v", url, err)
	}
	return p.adminAnswered(ctx, hc, s, url, a)
}

// adminAnswered records what the first-admin call at url got back: done,
// retried while nothing but a proxy on the way (or a server still
// starting) answered, or stalled when the installed KubeOpera refused it.
func (p *Pipeline) adminAnswered(ctx context.Context, hc *v1.HostCluster, s *corev1.Secret, url string, a answer) error {
	switch {
	case a.status == http.StatusCreated:
		if err := p.markAdmin(ctx, s, adminCreated); err != nil {
			return err
		}
		return adminWasCreated(hc, s)
	case a.status == http.StatusConflict:
		// An earlier call of ours may have succeeded just before a crash:
		// the Secret's password is then the admin's; say both.
		if err := p.markAdmin(ctx, s, adminExisted); err != nil {
			return err
		}
		return adminDone(hc, metav1.ConditionFalse, v1.ReasonAlreadyExists,
			"first admin not created: the installed KubeOpera already has an administrator (if an earlier attempt of this pipeline made it, its password is in Secret %s/%s)", hc.Namespace, s.Name)
	case a.status >= 500 || a.status == http.StatusNotFound, // not served yet
		a.status == http.StatusForbidden && !a.fromServer: // the API server or a proxy on the way refused to pass it on
		return p.adminRetry(hc, "creating the first admin at %s: %s", url, a)
	}
	return step.Stall(v1.ReasonAdminRefused, "creating the first admin at %s was refused: %s; fix the HostCluster's adminEmail "+
		"and adminUsername, or the installed KubeOpera, then change the spec to try again", url, a)
}

// adminEndpoint is the base URL of the KubeOpera installed on the cluster
// and the client that reaches it: Options.AdminURL when set, else the
// server's Service through the cluster's own API server (its service
// proxy, with the stored kubeconfig), which works on a fresh cluster
// before any DNS record or certificate exists.
func (p *Pipeline) adminEndpoint(hc *v1.HostCluster, t *target) (string, *http.Client, error) {
	if p.o.AdminURL != nil {
		return strings.TrimSuffix(p.o.AdminURL(hc), "/"), p.o.HTTPClient, nil
	}
	c, err := rest.HTTPClientFor(t.config)
	if err != nil {
		return "", nil, err
	}
	c.Timeout = 30 * time.Second
	return strings.TrimSuffix(t.config.Host, "/") + ServerProxyPath, c, nil
}

// ServerProxyPath is the path, on a cluster's API server, of the service
// proxy to the installed KubeOpera server's http port.
const ServerProxyPath = "/api/v1/namespaces/" + gitops.NamespaceSystem + "/services/" + gitops.ServerName + ":http/proxy"

// adminRetry waits for the installed KubeOpera to answer, for AdminTimeout
// from the first attempt for this spec; then the cluster is stalled with
// the last answer, since a server that never answers needs a person.
func (p *Pipeline) adminRetry(hc *v1.HostCluster, format string, args ...any) error {
	last := fmt.Sprintf(format, args...)
	if c := metaCondition(hc, v1.ConditionAdminCreated); c == nil || c.Reason != v1.ReasonWaiting || c.ObservedGeneration != hc.Generation {
		meta.RemoveStatusCondition(&hc.Status.Conditions, v1.ConditionAdminCreated)
	}
	hc.SetCondition(v1.ConditionAdminCreated, metav1.ConditionFalse, v1.ReasonWaiting, last)
	waited := since(hc, v1.ConditionAdminCreated)
	if waited >= p.o.AdminTimeout {
		return step.Stall(v1.ReasonAdminUnanswered, "the installed KubeOpera did not accept the first-admin call for %s; last: %s. Check its server "+
			"Deployment on the cluster, then change the HostCluster's spec (or reconnect) to try again", p.o.AdminTimeout, last)
	}
	return step.Retry(adminBackoff(waited), "%s; the first-admin call is retried until %s UTC", last,
		time.Now().Add(p.o.AdminTimeout-waited).UTC().Format(time.TimeOnly))
}

// adminBackoff is the delay before the next first-admin attempt, waited
// after the first failed one: as long as that, between 1 and 30 seconds,
// so the delays double (1, 1, 2, 4, ... 30 s) without keeping a count.
func adminBackoff(waited time.Duration) time.Duration {
	return min(max(waited, time.Second), 30*time.Second)
}

// adminCallTimeout bounds one first-admin call, so a server that accepts
// the connection but never answers cannot hold a reconcile beyond the
// admin timeout.
func (p *Pipeline) adminCallTimeout() time.Duration { return min(30*time.Second, p.o.AdminTimeout) }

func adminWasCreated(hc *v1.HostCluster, s *corev1.Secret) error {
	return adminDone(hc, metav1.ConditionTrue, v1.ReasonCreated, "super-admin %s created; password in Secret %s/%s",
		hc.Spec.AdminUsername, hc.Namespace, s.Name)
}

func adminDone(hc *v1.HostCluster, status metav1.ConditionStatus, reason, format string, args ...any) error {
	hc.SetCondition(v1.ConditionAdminCreated, status, reason, fmt.Sprintf(format, args...))
	return nil
}

// adminSecret returns the admin password Secret on the host, creating it
// with a new password (state pending) when there is none.
func (p *Pipeline) adminSecret(ctx context.Context, hc *v1.HostCluster, name string) (*corev1.Secret, error) {
	s := &corev1.Secret{}
	err := p.o.Reader.Get(ctx, client.ObjectKey{Namespace: hc.Namespace, Name: name}, s)
	if err == nil {
		return s, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("read Secret %s: %w", name, err)
	}
	s = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: hc.Namespace,
		Labels:      map[string]string{v1.ClusterIDLabel: hc.Name},
		Annotations: map[string]string{adminStateAnnotation: adminPending}},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{"username": []byte(hc.Spec.AdminUsername), "email": []byte(hc.Spec.AdminEmail),
			"password": []byte(randomHex(24))}}
	if err := p.o.Management.Create(ctx, s); err != nil {
		return nil, fmt.Errorf("store the first admin's password in Secret %s: %w", name, err)
	}
	return s, nil
}

func (p *Pipeline) markAdmin(ctx context.Context, s *corev1.Secret, state string) error {
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	s.Annotations[adminStateAnnotation] = state
	if err := p.o.Management.Update(ctx, s); err != nil {
		return fmt.Errorf("record the first admin's state on Secret %s: %w", s.Name, err)
	}
	return nil
}

// answer is what a first-admin call got back.
type answer struct {
	status int
	// detail is the problem's detail (or title), a Kubernetes Status's
	// message, or else the body's text.
	detail string
	// fromServer: the installed KubeOpera answered (a problem document),
	// not the API server's proxy or anything else on the way.
	fromServer bool
}

// String is the answer as a status message reads it, e.g.
// "HTTP 403: resolve_deny: denied destination".
func (a answer) String() string {
	if a.detail == "" {
		return fmt.Sprintf("HTTP %d with an empty body", a.status)
	}
	return fmt.Sprintf("HTTP %d: %s", a.status, a.detail)
}

// readAnswer reads the status and the part of the body a person needs.
func readAnswer(resp *http.Response) answer {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	a := answer{status: resp.StatusCode,
		fromServer: strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json")}
	var doc struct{ Title, Detail, Message string }
	if json.Unmarshal(raw, &doc) == nil {
		a.detail = cmp.Or(doc.Detail, doc.Message, doc.Title)
	}
	if a.detail == "" {
		a.detail = strings.Join(strings.Fields(string(raw)), " ")
	}
	if len(a.detail) > 300 {
		a.detail = a.detail[:300] + "..."
	}
	return a
}

// postAdmin calls the endpoint.
func (p *Pipeline) postAdmin(ctx context.Context, httpClient *http.Client, url string, hc *v1.HostCluster, password, setup []byte) (answer, error) {
	body, _ := json.Marshal(map[string]string{"email": hc.Spec.AdminEmail, "username": hc.Spec.AdminUsername,
		"password": string(password)})
	ctx, cancel := context.WithTimeout(ctx, p.adminCallTimeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(v1.SetupSecretHeader, string(setup))
	resp, err := httpClient.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	return readAnswer(resp), nil
}
