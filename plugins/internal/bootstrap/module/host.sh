# ---- host.sh: kernel settings, containerd, kubeadm/kubelet/kubectl ----

prepare_host() {
	step prepare-host
	mkdir -p "$KO_ROOT/etc/modules-load.d" "$KO_ROOT/etc/sysctl.d" "$KO_ROOT/etc/apt/keyrings" \
		"$KO_ROOT/etc/apt/sources.list.d" "$KO_ROOT/etc/containerd"
	printf 'overlay\nbr_netfilter\n' >"$KO_ROOT/etc/modules-load.d/kubeopera.conf"
	modprobe overlay
	modprobe br_netfilter
	printf '%s\n' 'net.bridge.bridge-nf-call-iptables = 1' 'net.bridge.bridge-nf-call-ip6tables = 1' \
		'net.ipv4.ip_forward = 1' >"$KO_ROOT/etc/sysctl.d/99-kubeopera.conf"
	quiet sysctl --system
	swapoff -a
}

# apt_get waits for the dpkg lock: on first boot cloud-init and
# unattended-upgrades may still hold it.
apt_get() {
	DEBIAN_FRONTEND=noninteractive quiet apt-get -o DPkg::Lock::Timeout=600 -y -q "$@"
}

install_packages() {
	step install-packages
	local repo="https://pkgs.k8s.io/core:/stable:/v$KO_KUBERNETES_VERSION/deb/"
	apt_get update
	apt_get install ca-certificates curl gpg containerd
	curl -fsSL --retry 5 "${repo}Release.key" |
		gpg --dearmor --yes -o "$KO_ROOT/etc/apt/keyrings/kubernetes-apt-keyring.gpg"
	printf 'deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] %s /\n' "$repo" \
		>"$KO_ROOT/etc/apt/sources.list.d/kubernetes.list"
	apt_get update
	apt_get install kubelet kubeadm kubectl
	quiet apt-mark hold kubelet kubeadm kubectl
	# Ubuntu 24.04 has no awscli package; the snap is the supported install.
	if ! command -v aws >/dev/null; then
		quiet snap install aws-cli --classic
	fi
}

configure_containerd() {
	step configure-containerd
	containerd config default >"$KO_ROOT/etc/containerd/config.toml"
	# kubeadm configures the kubelet for the systemd cgroup driver.
	sed -i 's/SystemdCgroup = false/SystemdCgroup = true/' "$KO_ROOT/etc/containerd/config.toml"
	systemctl restart containerd
	systemctl enable --now kubelet
}

install_node() {
	prepare_host
	install_packages
	configure_containerd
}

# untaint_self lets workloads run on this control-plane node (clusters
# without workers).
untaint_self() {
	if [ "$KO_UNTAINT_CONTROL_PLANE" != true ]; then
		return 0
	fi
	step untaint
	local node
	node="$(hostname)"
	quiet kubectl --kubeconfig "$KO_KUBECONFIG" taint node "${node,,}" node-role.kubernetes.io/control-plane:NoSchedule-
}
