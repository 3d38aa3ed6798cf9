# ---- cloud.sh: external cloud provider, AWS cloud controller manager (CCM), EBS CSI driver ----
# Why here and not in the GitOps tree: docs/aws.md, "Storage and load balancers".

# configure_kubelet: the deb's kubeadm drop-in reads /etc/default/kubelet
# (kubeadm init/join flags cannot carry kubelet flags).
configure_kubelet() {
	step configure-kubelet
	mkdir -p "$KO_ROOT/etc/default"
	printf 'KUBELET_EXTRA_ARGS=--cloud-provider=external\n' >"$KO_ROOT/etc/default/kubelet"
}

# node_name prints the private DNS name, which the CCM requires as Node
# name (not Ubuntu's short host name); IMDS may list several.
node_name() {
	local names
	names="$(imds local-hostname)"
	printf '%s' "${names%% *}"
}

# apply_kustomization NAME applies stdin as NAME's kustomization.yaml.
# Remote bases are written in kustomize's documented form
# (examples/remoteBuild.md): the repository's clone URL, // where the
# repository ends and the directory starts, and a tag as ref, so kustomize
# does not guess where the repository ends.
apply_kustomization() {
	local dir="$KO_WORK/$1"
	mkdir -p "$dir"
	cat >"$dir/kustomization.yaml"
	kubectl_tries apply -k "$dir"
}

# install_cloud_controller applies upstream's kustomize base at the pinned
# release; only the image (the base names an old one), the node selector
# and the tolerations are patched.
install_cloud_controller() {
	step install-cloud-controller
	apply_kustomization cloud-controller <<EOF_CCM
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- https://github.com/kubernetes/cloud-provider-aws//examples/existing-cluster/base?ref=$KO_CLOUD_CONTROLLER_VERSION
patches:
- target:
    kind: DaemonSet
    name: aws-cloud-controller-manager
  patch: |-
    - op: replace
      path: /spec/template/spec/containers/0/image
      value: $KO_CLOUD_CONTROLLER_IMAGE
    - op: replace
      path: /spec/template/spec/nodeSelector
      value:
        node-role.kubernetes.io/control-plane: ""
    - op: replace
      path: /spec/template/spec/tolerations
      value:
      - key: node.cloudprovider.kubernetes.io/uninitialized
        value: "true"
        effect: NoSchedule
      - key: node-role.kubernetes.io/control-plane
        operator: Exists
        effect: NoSchedule
EOF_CCM
}

# The EBS controller: on a control plane, host network (IMDS), so one
# replica, replaced not surged (host ports). --k8s-tag-cluster-id tags its
# volumes kubernetes.io/cluster/<name> = owned and KubernetesCluster, by
# which a destroy finds the volumes the cluster left behind (without it
# they carry only ebs.csi.aws.com/cluster = true, as every cluster's do).
# The image is set through images: upstream's overlay at a release tag can
# still name the release before it (the bump comes in a later commit).
install_ebs_csi_driver() {
	step install-ebs-csi-driver
	apply_kustomization ebs-csi-driver <<EOF_EBS
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- https://github.com/kubernetes-sigs/aws-ebs-csi-driver//deploy/kubernetes/overlays/stable?ref=$KO_EBS_CSI_DRIVER_REF
images:
- name: public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver
  newTag: $KO_EBS_CSI_DRIVER_REF
patches:
- target:
    kind: Deployment
    name: ebs-csi-controller
  patch: |-
    - op: add
      path: /spec/replicas
      value: 1
    - op: add
      path: /spec/strategy
      value:
        type: Recreate
    - op: add
      path: /spec/template/spec/hostNetwork
      value: true
    - op: add
      path: /spec/template/spec/containers/0/args/-
      value: --k8s-tag-cluster-id=kubeopera-$KO_CLUSTER_ID
    - op: add
      path: /spec/template/spec/nodeSelector/node-role.kubernetes.io~1control-plane
      value: ""
    - op: add
      path: /spec/template/spec/tolerations/-
      value:
        key: node-role.kubernetes.io/control-plane
        operator: Exists
        effect: NoSchedule
EOF_EBS
}
