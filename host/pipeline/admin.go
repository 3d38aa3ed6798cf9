package pipeline

import (
	"bytes"
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
	name := v1.AdminPasswordSecretName(hc.Name)
	where := hc.Namespace + "/" + name
	s, err := p.adminSecret(ctx, hc, name)
	if err != nil {
		return err
	}
	hc.Status.AdminPasswordSecretRef = name
	switch s.Annotations[adminStateAnnotation] {
	case adminCreated:
		return adminDone(hc, metav1.ConditionTrue, v1.ReasonCreated, "super-admin %s created; password in Secret %s", hc.Spec.AdminUsername, where)
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
	status, detail, err := p.postAdmin(ctx, httpClient, url, hc, s.Data["password"], setup)
	switch {
	case err != nil:
		return p.adminRetry(hc, "creating the first admin at %s: %v", url, err)
	case status == http.StatusCreated:
		if err := p.markAdmin(ctx, s, adminCreated); err != nil {
			return err
		}
		return adminDone(hc, metav1.ConditionTrue, v1.ReasonCreated, "super-admin %s created; password in Secret %s", hc.Spec.AdminUsername, where)
	case status == http.StatusConflict:
		// An earlier call of ours may have succeeded just before a crash:
		// the Secret's password is then the admin's; say both.
		if err := p.markAdmin(ctx, s, adminExisted); err != nil {
			return err
		}
		return adminDone(hc, metav1.ConditionFalse, v1.ReasonAlreadyExists,
			"first admin not created: the installed KubeOpera already has an administrator (if an earlier attempt of this pipeline made it, its password is in Secret %s)", where)
	case status >= 500 || status == http.StatusNotFound: // not served yet
		return p.adminRetry(hc, "creating the first admin at %s: HTTP %d %s", url, status, detail)
	}
	return step.Stall(v1.ReasonAdminRefused, "creating the first admin at %s was refused (HTTP %d): %s; fix the HostCluster's adminEmail "+
		"and adminUsername, or the installed KubeOpera, then change the spec to try again", url, status, detail)
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
	return step.Retry(0, "%s; the first-admin call is retried until %s UTC", last,
		time.Now().Add(p.o.AdminTimeout-waited).UTC().Format(time.TimeOnly))
}

// adminCallTimeout bounds one first-admin call, so a server that accepts
// the connection but never answers cannot hold a reconcile beyond the
// admin timeout.
func (p *Pipeline) adminCallTimeout() time.Duration { return min(30*time.Second, p.o.AdminTimeout) }

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

// postAdmin calls the endpoint; detail is the problem's detail or title.
func (p *Pipeline) postAdmin(ctx context.Context, httpClient *http.Client, url string, hc *v1.HostCluster, password, setup []byte) (int, string, error) {
	body, _ := json.Marshal(map[string]string{"email": hc.Spec.AdminEmail, "username": hc.Spec.AdminUsername,
		"password": string(password)})
	ctx, cancel := context.WithTimeout(ctx, p.adminCallTimeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(v1.SetupSecretHeader, string(setup))
	resp, err := httpClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var problem struct{ Title, Detail string }
	_ = json.Unmarshal(raw, &problem)
	detail := problem.Detail
	if detail == "" {
		detail = problem.Title
	}
	return resp.StatusCode, detail, nil
}
