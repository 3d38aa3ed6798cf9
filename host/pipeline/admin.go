package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
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
func (p *Pipeline) createAdmin(ctx context.Context, hc *v1.HostCluster, _ *target) (outcome, error) {
	if hc.Spec.AdminEmail == "" || hc.Spec.AdminUsername == "" {
		setCondition(hc, v1.ConditionAdminCreated, metav1.ConditionFalse, "Skipped",
			"first admin not created: set adminEmail and adminUsername to have one created")
		return outcome{done: true}, nil
	}
	name := v1.AdminPasswordSecretName(hc.Name)
	where := hc.Namespace + "/" + name
	s, err := p.adminSecret(ctx, hc, name)
	if err != nil {
		return outcome{phase: v1.PhaseInstallingKubeOpera}, err
	}
	hc.Status.AdminPasswordSecretRef = name
	switch s.Annotations[adminStateAnnotation] {
	case adminCreated:
		return p.adminDone(hc, metav1.ConditionTrue, "Created", "super-admin %s created; password in Secret %s", hc.Spec.AdminUsername, where)
	case adminExisted:
		return p.adminDone(hc, metav1.ConditionFalse, "AlreadyExists", "first admin not created: the installed KubeOpera already had an administrator")
	}
	url := strings.TrimSuffix(p.o.AdminURL(hc), "/") + setupPath
	status, detail, err := p.postAdmin(ctx, url, hc, s.Data["password"])
	switch {
	case err != nil:
		return waiting(v1.PhaseInstallingKubeOpera, "creating the first admin at %s, retrying: %v", url, err), nil
	case status == http.StatusCreated:
		if err := p.markAdmin(ctx, s, adminCreated); err != nil {
			return outcome{phase: v1.PhaseInstallingKubeOpera}, err
		}
		return p.adminDone(hc, metav1.ConditionTrue, "Created", "super-admin %s created; password in Secret %s", hc.Spec.AdminUsername, where)
	case status == http.StatusConflict:
		// An earlier call of ours may have succeeded just before a crash:
		// the Secret's password is then the admin's; say both.
		if err := p.markAdmin(ctx, s, adminExisted); err != nil {
			return outcome{phase: v1.PhaseInstallingKubeOpera}, err
		}
		return p.adminDone(hc, metav1.ConditionFalse, "AlreadyExists",
			"first admin not created: the installed KubeOpera already has an administrator (if an earlier attempt of this pipeline made it, its password is in Secret %s)", where)
	case status >= 500 || status == http.StatusNotFound: // not served yet
		return waiting(v1.PhaseInstallingKubeOpera, "creating the first admin at %s: HTTP %d %s, retrying", url, status, detail), nil
	}
	return failed("creating the first admin at %s was refused (HTTP %d): %s", url, status, detail), nil
}

func (p *Pipeline) adminDone(hc *v1.HostCluster, status metav1.ConditionStatus, reason, format string, args ...any) (outcome, error) {
	setCondition(hc, v1.ConditionAdminCreated, status, reason, fmt.Sprintf(format, args...))
	return outcome{done: true}, nil
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
func (p *Pipeline) postAdmin(ctx context.Context, url string, hc *v1.HostCluster, password []byte) (int, string, error) {
	body, _ := json.Marshal(map[string]string{"email": hc.Spec.AdminEmail, "username": hc.Spec.AdminUsername,
		"password": string(password)})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.o.HTTPClient.Do(req)
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
