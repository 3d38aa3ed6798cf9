# ---- host.sh: kernel settings, the AWS CLI, containerd, kubeadm/kubelet/kubectl ----

# install_aws_cli comes before every other step: without it no failure can
# be reported on the relay. Ubuntu 24.04 has no awscli package; the snap is
# the supported install.
install_aws_cli() {
	step install-aws-cli
	if ! command -v aws >/dev/null; then
		retry quiet snap install aws-cli --classic ||
			fail "snap install aws-cli failed 5 times; is the snap store reachable through the NAT gateway? (details in /var/log/kubeopera/bootstrap.log)"
	fi
}

prepare_host() {
	step prepare-host
	mkdir -p "$KO_ROOT/etc/modules-load.d" "$KO_ROOT/etc/sysctl.d" "$KO_ROOT/etc/apt/keyrings" \
		"$KO_ROOT/etc/apt/sources.list.d" "$KO_ROOT/etc/containerd/conf.d"
	printf 'overlay\nbr_netfilter\n' >"$KO_ROOT/etc/modules-load.d/kubeopera.conf"
	modprobe overlay
	modprobe br_netfilter
	printf '%s\n' 'net.bridge.bridge-nf-call-iptables = 1' 'net.bridge.bridge-nf-call-ip6tables = 1' \
		'net.ipv4.ip_forward = 1' >"$KO_ROOT/etc/sysctl.d/99-kubeopera.conf"
	quiet sysctl --system
	swapoff -a
}

# apt_get waits for the dpkg lock (on first boot cloud-init and
# unattended-upgrades may still hold it) and tries again when a mirror
# fails for a moment.
apt_get() {
	local -x DEBIAN_FRONTEND=noninteractive
	retry quiet apt-get -o DPkg::Lock::Timeout=600 -y -q "$@" ||
		fail "apt-get $1 failed 5 times (details in /var/log/kubeopera/bootstrap.log)"
}

# fetch URL FILE downloads URL to FILE; curl retries every failure,
# refused connections and HTTP errors included.
fetch() {
	curl -fsSL --retry 5 --retry-all-errors --retry-delay 2 -o "$2" "$1"
}

# install_containerd installs the pinned containerd 2.x release (checked
# against the sha256 published with it) and runc (checked against runc's
# sha256 list): Ubuntu 24.04's containerd is 1.7, which Kubernetes 1.36
# and later no longer support.
install_containerd() {
	step install-containerd
	local tarball="containerd-$KO_CONTAINERD_VERSION-linux-$KO_ARCH.tar.gz" runc="runc.$KO_ARCH" want
	local base="https://github.com/containerd/containerd/releases/download/v$KO_CONTAINERD_VERSION"
	local runc_base="https://github.com/opencontainers/runc/releases/download/v$KO_RUNC_VERSION"
	fetch "$base/$tarball" "$KO_WORK/$tarball"
	fetch "$base/$tarball.sha256sum" "$KO_WORK/$tarball.sha256sum"
	(cd "$KO_WORK" && quiet sha256sum --check "$tarball.sha256sum") ||
		fail "containerd $KO_CONTAINERD_VERSION does not match its published sha256"
	mkdir -p "$KO_ROOT/usr/local/sbin" "$KO_ROOT/etc/systemd/system"
	tar -C "$KO_ROOT/usr/local" -xzf "$KO_WORK/$tarball"
	fetch "$runc_base/$runc" "$KO_WORK/$runc"
	fetch "$runc_base/runc.sha256sum" "$KO_WORK/runc.sha256sum"
	want="$(grep " \*\{0,1\}$runc\$" "$KO_WORK/runc.sha256sum" | cut -d ' ' -f 1)"
	if [ -z "$want" ] || [ "$(sha256sum "$KO_WORK/$runc" | cut -d ' ' -f 1)" != "$want" ]; then
		fail "runc $KO_RUNC_VERSION does not match its published sha256"
	fi
	cp "$KO_WORK/$runc" "$KO_ROOT/usr/local/sbin/runc"
	chmod 755 "$KO_ROOT/usr/local/sbin/runc"
	printf '%s\n' '[Unit]' 'Description=containerd container runtime' 'After=network.target local-fs.target' '' \
		'[Service]' 'ExecStart=/usr/local/bin/containerd' 'Type=notify' 'Delegate=yes' 'KillMode=process' \
		'Restart=always' 'RestartSec=5' 'LimitNPROC=infinity' 'LimitCORE=infinity' 'TasksMax=infinity' \
		'OOMScoreAdjust=-999' '' '[Install]' 'WantedBy=multi-user.target' \
		>"$KO_ROOT/etc/systemd/system/containerd.service"
}

# install_cni_plugins installs the pinned reference plugins (bridge,
# portmap, loopback: flannel's CNI configuration delegates to them),
# checked against their published sha256.
install_cni_plugins() {
	local tarball="cni-plugins-linux-$KO_ARCH-$KO_CNI_PLUGINS_VERSION.tgz"
	local base="https://github.com/containernetworking/plugins/releases/download/$KO_CNI_PLUGINS_VERSION"
	fetch "$base/$tarball" "$KO_WORK/$tarball"
	fetch "$base/$tarball.sha256" "$KO_WORK/$tarball.sha256"
	(cd "$KO_WORK" && quiet sha256sum --check "$tarball.sha256") ||
		fail "CNI plugins $KO_CNI_PLUGINS_VERSION do not match their published sha256"
	mkdir -p "$KO_ROOT/opt/cni/bin"
	tar -C "$KO_ROOT/opt/cni/bin" -xzf "$KO_WORK/$tarball"
}

install_packages() {
	step install-packages
	local repo="https://pkgs.k8s.io/core:/stable:/v$KO_KUBERNETES_VERSION/deb/" pin=""
	apt_get update
	# git: kubectl fetches the cloud controller's and the EBS driver's
	# kustomize bases with it (cloud.sh).
	apt_get install ca-certificates curl gpg git
	install_containerd
	step install-kubernetes
	fetch "${repo}Release.key" "$KO_WORK/kubernetes-release.key"
	gpg --dearmor --yes -o "$KO_ROOT/etc/apt/keyrings/kubernetes-apt-keyring.gpg" "$KO_WORK/kubernetes-release.key"
	printf 'deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] %s /\n' "$repo" \
		>"$KO_ROOT/etc/apt/sources.list.d/kubernetes.list"
	apt_get update
	if [ -n "$KO_KUBERNETES_PATCH" ]; then
		pin="=$KO_KUBERNETES_PATCH-*"
	fi
	apt_get install "kubelet$pin" "kubeadm$pin" "kubectl$pin"
	# kubelet's package pulls in pkgs.k8s.io's kubernetes-cni, which
	# unpacks its own build of the plugins into /opt/cni/bin: the pinned
	# ones go in after it, and it is held so no upgrade puts its own back.
	quiet apt-mark hold kubelet kubeadm kubectl kubernetes-cni
	install_cni_plugins
}

# configure_containerd sets the systemd cgroup driver (kubeadm configures
# the kubelet for it) in a drop-in, then checks containerd's merged
# configuration: an edit of the default file can silently match nothing.
configure_containerd() {
	step configure-containerd
	printf '%s\n' 'version = 3' 'imports = ["/etc/containerd/conf.d/*.toml"]' >"$KO_ROOT/etc/containerd/config.toml"
	printf '%s\n' "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]" \
		'  SystemdCgroup = true' >"$KO_ROOT/etc/containerd/conf.d/10-kubeopera-cgroup.toml"
	systemctl daemon-reload
	systemctl enable --now containerd
	systemctl restart containerd
	containerd config dump >"$KO_WORK/containerd-config.toml"
	grep -Eq '^[[:space:]]*SystemdCgroup = true' "$KO_WORK/containerd-config.toml" ||
		fail "containerd's merged configuration does not enable SystemdCgroup (see containerd config dump)"
	systemctl enable --now kubelet
}

install_node() {
	prepare_host
	install_packages
	configure_kubelet
	configure_containerd
}

# untaint_self lets workloads run on this control-plane node (clusters
# without workers), and lets load balancers send to it: kubeadm labels
# control planes node.kubernetes.io/exclude-from-external-load-balancers,
# which would leave a LoadBalancer Service with no target at all.
untaint_self() {
	if [ "$KO_UNTAINT_CONTROL_PLANE" != true ]; then
		return 0
	fi
	step untaint
	local node
	node="$(node_name)"
	kubectl_tries taint node "$node" node-role.kubernetes.io/control-plane:NoSchedule-
	kubectl_tries label node "$node" node.kubernetes.io/exclude-from-external-load-balancers-
}

# install_cni applies upstream's flannel manifest at the pinned release,
# byte for byte: its sha256 is the one the plugins' tests computed from
# upstream's own file, so the images it names (on ghcr.io, not Docker Hub,
# whose anonymous pull limit all nodes behind one NAT address share) are
# the ones the tests checked.
install_cni() {
	local file="$KO_WORK/cni.yaml"
	fetch "$KO_CNI_MANIFEST_URL" "$file"
	if [ "$(sha256sum "$file" | cut -d ' ' -f 1)" != "$KO_CNI_MANIFEST_SHA256" ]; then
		fail "the pod network manifest $KO_CNI_MANIFEST_URL does not have the pinned sha256 $KO_CNI_MANIFEST_SHA256"
	fi
	kubectl_tries apply -f "$file"
}
