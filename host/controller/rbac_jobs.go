package controller

// The Terraform Job runner (sdk/terraform's Jobs executor, used by the
// provider plugins the controller starts in its pod) works in
// kubeopera-provisioning only: one Job per run with its ConfigMap and env
// Secret, the state Secret and lock Lease of terraform's kubernetes
// backend, the pods' logs, and the ServiceAccount, Role and RoleBinding of
// the Jobs' pods (which it can grant only because it holds those rights).

// +kubebuilder:rbac:groups="",namespace=kubeopera-provisioning,resources=namespaces,verbs=get
// +kubebuilder:rbac:groups=batch,namespace=kubeopera-provisioning,resources=jobs,verbs=get;create;patch;delete
// +kubebuilder:rbac:groups="",namespace=kubeopera-provisioning,resources=configmaps,verbs=get;create;update;delete
// +kubebuilder:rbac:groups="",namespace=kubeopera-provisioning,resources=secrets,verbs=get;list;create;update;delete
// +kubebuilder:rbac:groups="",namespace=kubeopera-provisioning,resources=pods,verbs=list
// +kubebuilder:rbac:groups="",namespace=kubeopera-provisioning,resources=pods/log,verbs=get
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=kubeopera-provisioning,resources=leases,verbs=get;create;update
// +kubebuilder:rbac:groups="",namespace=kubeopera-provisioning,resources=serviceaccounts,verbs=get;create;update
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,namespace=kubeopera-provisioning,resources=roles;rolebindings,verbs=get;create;update
