# ---- control-plane.sh: member 0 runs kubeadm init, member i joins after i-1 ----

control_plane_main() {
	install_node
	if [ "$KO_INDEX" -eq 0 ]; then
		init_cluster
	else
		join_control_plane
	fi
}

# control_plane_endpoint prints the API host: the override (the NLB) or,
# with a single control plane, this instance's private IP.
control_plane_endpoint() {
	if [ -n "$KO_ENDPOINT_OVERRIDE" ]; then
		printf '%s' "$KO_ENDPOINT_OVERRIDE"
	else
		imds local-ipv4
	fi
}

# ca_cert_hash prints the sha256 of the cluster CA's public key (DER
# SubjectPublicKeyInfo), the value of --discovery-token-ca-cert-hash.
ca_cert_hash() {
	openssl x509 -in "$KO_ROOT/etc/kubernetes/pki/ca.crt" -noout -pubkey |
		openssl pkey -pubin -outform DER | sha256sum | cut -d ' ' -f 1
}

init_cluster() {
	local endpoint token certificate_key version node config="$KO_WORK/kubeadm.yaml"
	step resolve-endpoint
	endpoint="$(control_plane_endpoint)"
	node="$(node_name)"
	step kubeadm-init
	# Generated here rather than parsed from kubeadm's output, so they are
	# never printed; --skip-*-print keeps them out of the log as well.
	token="$(kubeadm token generate)"
	certificate_key="$(kubeadm certs certificate-key)"
	version="$(kubeadm version -o short)"
	init_config "$endpoint" "$token" "$certificate_key" "$version" "$node" >"$config"
	map_endpoint_to_self
	kubeadm_tries init --config "$config" --upload-certs --skip-token-print --skip-certificate-key-print
	rm -f "$config"
	step install-cni
	install_cni
	install_cloud_controller
	install_ebs_csi_driver
	untaint_self
	unmap_endpoint
	publish_join_data "$endpoint" "$token" "$certificate_key"
	create_manager_account
	publish_manager_kubeconfig "${KO_PUBLIC_ENDPOINT:-$endpoint}"
	install_refresher
	step publish-ready
	relay_put_text "$KO_MARKER" String ready
}

# install_refresher keeps the join data valid after day one: bootstrap
# tokens expire and uploaded certificates are deleted after 2 h, so a
# worker the Auto Scaling Group replaces later, or a control plane added
# later, would fail to join. A timer runs this script with refresh-join
# every hour on every control plane.
install_refresher() {
	step install-refresher
	local unit="$KO_ROOT/etc/systemd/system/kubeopera-refresh-join"
	mkdir -p "$KO_ROOT/usr/local/sbin" "$KO_ROOT/etc/systemd/system"
	cp "$0" "$KO_ROOT/usr/local/sbin/kubeopera-bootstrap"
	chmod 700 "$KO_ROOT/usr/local/sbin/kubeopera-bootstrap"
	printf '%s\n' '[Unit]' 'Description=Refresh KubeOpera join data' '' '[Service]' 'Type=oneshot' 'Environment=HOME=/root' \
		'ExecStart=/usr/local/sbin/kubeopera-bootstrap refresh-join' >"$unit.service"
	printf '%s\n' '[Unit]' 'Description=Refresh KubeOpera join data hourly' '' '[Timer]' 'OnBootSec=10min' \
		'OnUnitActiveSec=1h' 'RandomizedDelaySec=5min' '' '[Install]' 'WantedBy=timers.target' >"$unit.timer"
	systemctl daemon-reload
	systemctl enable --now kubeopera-refresh-join.timer
	install_credential_refresher
}

# refresh_join publishes a new worker token (valid 2 h, more than the
# timer's period) and uploads the certificates again under the published
# key. A failure is logged, never written over this member's marker.
refresh_join() {
	local join secret endpoint certificate_key token
	KO_STEP=refresh-join KO_MARKER=
	join="$(relay_get "$KO_PARAM_WORKER_JOIN")"
	secret="$(relay_get "$KO_PARAM_CONTROL_PLANE_JOIN")"
	endpoint="$(field endpoint <<<"$join")"
	certificate_key="$(field certificate_key <<<"$secret")"
	token="$(kubeadm token create --ttl 2h --kubeconfig "$KO_KUBECONFIG")"
	quiet kubeadm init phase upload-certs --upload-certs --certificate-key "$certificate_key" \
		--skip-certificate-key-print
	publish_join_data "$endpoint" "$token" "$certificate_key"
	log "join data refreshed"
}

# map_endpoint_to_self points the NLB's name at this node while it runs
# kubeadm init: kubeadm's own calls through an NLB whose only target is
# still registering fail intermittently (kubeadm#3294).
map_endpoint_to_self() {
	if [ -n "$KO_ENDPOINT_OVERRIDE" ]; then
		printf '%s %s # kubeopera-init\n' "$(imds local-ipv4)" "$KO_ENDPOINT_OVERRIDE" >>"$KO_ROOT/etc/hosts"
	fi
}

unmap_endpoint() {
	if [ -e "$KO_ROOT/etc/hosts" ]; then
		sed -i '/ # kubeopera-init$/d' "$KO_ROOT/etc/hosts"
	fi
}

# init_config ENDPOINT TOKEN CERTIFICATE_KEY VERSION NODE prints member 0's
# kubeadm configuration. It holds secrets: it only goes to a root-only file.
init_config() {
	printf '%s\n' 'apiVersion: kubeadm.k8s.io/v1beta4' 'kind: InitConfiguration' 'bootstrapTokens:' \
		"- token: \"$2\"" "certificateKey: \"$3\"" 'nodeRegistration:' "  name: \"$5\"" '---' \
		'apiVersion: kubeadm.k8s.io/v1beta4' 'kind: ClusterConfiguration' "kubernetesVersion: \"$4\"" \
		"controlPlaneEndpoint: \"$1:6443\"" 'networking:' "  podSubnet: \"$KO_POD_CIDR\""
	if [ -n "$KO_PUBLIC_ENDPOINT" ]; then
		printf '%s\n' 'apiServer:' '  certSANs:' "  - \"$KO_PUBLIC_ENDPOINT\""
	fi
}

# join_config ENDPOINT TOKEN CA_CERT_HASH NODE [CERTIFICATE_KEY] prints the
# kubeadm configuration of a joining node, of a control plane when given a
# certificate key. It holds secrets: it only goes to a root-only file.
join_config() {
	printf '%s\n' 'apiVersion: kubeadm.k8s.io/v1beta4' 'kind: JoinConfiguration' 'discovery:' '  bootstrapToken:' \
		"    apiServerEndpoint: \"$1:6443\"" "    token: \"$2\"" '    caCertHashes:' "    - \"$3\"" \
		'nodeRegistration:' "  name: \"$4\""
	if [ -n "${5:-}" ]; then
		printf '%s\n' 'controlPlane:' "  certificateKey: \"$5\""
	fi
}

# kubeadm_tries runs kubeadm init or join up to three times, with kubeadm
# reset between tries, before it gives up.
kubeadm_tries() {
	local try=1
	while ! quiet kubeadm "$@"; do
		if [ "$try" -ge 3 ]; then
			fail "kubeadm $1 failed $try times (details in /var/log/kubeopera/bootstrap.log)"
		fi
		log "kubeadm $1 failed (try $try of 3); resetting and trying again"
		quiet kubeadm reset --force
		try=$((try + 1))
		sleep "$KO_POLL_INTERVAL"
	done
}

publish_join_data() {
	local hash
	step publish-join-data
	hash="sha256:$(ca_cert_hash)"
	relay_put_text "$KO_PARAM_WORKER_JOIN" SecureString \
		"$(printf 'endpoint=%s\ntoken=%s\nca_cert_hash=%s\n' "$1" "$2" "$hash")"
	relay_put_text "$KO_PARAM_CONTROL_PLANE_JOIN" SecureString "certificate_key=$3"
}

# join_control_plane joins strictly after member i-1: two etcd members
# joining at once can leave etcd without quorum.
join_control_plane() {
	local previous=$((KO_INDEX - 1)) join secret certificate_key endpoint token hash node
	step "wait-for-member-$previous"
	relay_wait "$KO_PARAM_MEMBERS/$previous" "control-plane member $previous"
	step read-join-data
	join="$(relay_get "$KO_PARAM_WORKER_JOIN")"
	secret="$(relay_get "$KO_PARAM_CONTROL_PLANE_JOIN")"
	certificate_key="$(field certificate_key <<<"$secret")"
	endpoint="$(field endpoint <<<"$join")"
	token="$(field token <<<"$join")"
	hash="$(field ca_cert_hash <<<"$join")"
	node="$(node_name)"
	step kubeadm-join
	join_config "$endpoint" "$token" "$hash" "$node" "$certificate_key" >"$KO_WORK/kubeadm.yaml"
	kubeadm_tries join --config "$KO_WORK/kubeadm.yaml"
	rm -f "$KO_WORK/kubeadm.yaml"
	untaint_self
	install_refresher
	step publish-joined
	relay_put_text "$KO_MARKER" String joined
}
