package terraform

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// JobRole is the Role the Jobs' ServiceAccount needs for terraform's
// kubernetes backend in the namespace: the state Secret
// (tfstate-default-<id>: get, create, update; list, because init lists
// workspaces by label) and the lock Lease (lock-tfstate-default-<id>:
// get, create, update; force-unlock updates it too). Secrets cannot be
// narrowed by name, since the backend creates them: every Job's pod can
// read the other runs' Secrets in the namespace, which is why the
// credentials Secret of a run is deleted when the run ends and the
// namespace should hold nothing else.
func JobRole(namespace string) *rbacv1.Role {
	return &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: DefaultServiceAccount, Namespace: namespace,
			Labels: map[string]string{labelManagedBy: managedBy}},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "create", "update"}},
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "create", "update"}},
		},
	}
}

// RBAC returns the ServiceAccount the Jobs' pods run as, JobRole and the
// RoleBinding between them, all in the executor's namespace.
func (j Jobs) RBAC() (*corev1.ServiceAccount, *rbacv1.Role, *rbacv1.RoleBinding) {
	ns, name := j.namespace(), orDefault(j.ServiceAccount, DefaultServiceAccount)
	labels := map[string]string{labelManagedBy: managedBy}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}}
	role := JobRole(ns)
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name, Namespace: ns, Labels: labels},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}},
	}
	return sa, role, rb
}

// Ensure creates the namespace when it is missing and creates or updates
// the objects of RBAC in it, so Jobs can run. It is idempotent.
func (j Jobs) Ensure(ctx context.Context) error {
	if j.Client == nil {
		return fmt.Errorf("job terraform executor: Client is nil: set a client of the management cluster")
	}
	ns := j.namespace()
	// Looked up first: an executor whose namespace an operator made (as
	// config/default does) needs no right to create namespaces.
	_, err := j.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = j.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
			metav1.CreateOptions{})
	}
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("namespace %s: %w", ns, err)
	}
	sa, role, rb := j.RBAC()
	if err := createOrReplace(ctx, j.Client.CoreV1().ServiceAccounts(ns), sa); err != nil {
		return fmt.Errorf("service account %s/%s: %w", ns, sa.Name, err)
	}
	if err := createOrReplace(ctx, j.Client.RbacV1().Roles(ns), role); err != nil {
		return fmt.Errorf("role %s/%s: %w (the executor must hold the rights it grants)", ns, role.Name, err)
	}
	if err := createOrReplace(ctx, j.Client.RbacV1().RoleBindings(ns), rb); err != nil {
		return fmt.Errorf("role binding %s/%s: %w", ns, rb.Name, err)
	}
	return nil
}
