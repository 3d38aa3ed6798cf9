# ---- control-plane.sh: member 0 runs kubeadm init, member i joins after i-1 ----

control_plane_main() {
	KO_MARKER="$KO_PARAM_MEMBERS/$KO_INDEX"
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
	local endpoint token certificate_key version
	step resolve-endpoint
	endpoint="$(control_plane_endpoint)"
	step kubeadm-init
	# Generated here rather than parsed from kubeadm's output, so they are
	# never printed; --skip-*-print keeps them out of the log as well.
	token="$(kubeadm token generate)"
	certificate_key="$(kubeadm certs certificate-key)"
	version="$(kubeadm version -o short)"
	quiet kubeadm init --control-plane-endpoint "$endpoint:6443" --upload-certs \
		--certificate-key "$certificate_key" --token "$token" \
		--pod-network-cidr "$KO_POD_CIDR" --kubernetes-version "$version" \
		--skip-token-print --skip-certificate-key-print
	step install-cni
	quiet kubectl --kubeconfig "$KO_KUBECONFIG" apply -f "$KO_CNI_MANIFEST_URL"
	untaint_self
	publish_join_data "$endpoint" "$token" "$certificate_key"
	publish_kubeconfig "$endpoint"
	step publish-ready
	relay_put_text "$KO_MARKER" String ready
}

publish_join_data() {
	local hash
	step publish-join-data
	hash="sha256:$(ca_cert_hash)"
	relay_put_text "$KO_PARAM_WORKER_JOIN" SecureString \
		"$(printf 'endpoint=%s\ntoken=%s\nca_cert_hash=%s\n' "$1" "$2" "$hash")"
	relay_put_text "$KO_PARAM_CONTROL_PLANE_JOIN" SecureString "certificate_key=$3"
}

# publish_kubeconfig publishes the admin kubeconfig with its server set to
# the endpoint. Intelligent-Tiering: a kubeconfig with embedded certificates
# and key is over the 4 KB a Standard parameter holds.
publish_kubeconfig() {
	local file
	step publish-kubeconfig
	file="$(mktemp "$KO_WORK/kubeconfig.XXXXXX")"
	sed -E "s#^([[:space:]]*server:[[:space:]]*).*#\\1https://$1:6443#" "$KO_KUBECONFIG" >"$file"
	relay_put "$KO_PARAM_ADMIN_KUBECONFIG" SecureString "$file" Intelligent-Tiering
	rm -f "$file"
}

# join_control_plane joins strictly after member i-1: two etcd members
# joining at once can leave etcd without quorum.
join_control_plane() {
	local previous=$((KO_INDEX - 1)) join secret certificate_key endpoint token hash
	step "wait-for-member-$previous"
	relay_wait "$KO_PARAM_MEMBERS/$previous" "control-plane member $previous"
	step read-join-data
	join="$(relay_get "$KO_PARAM_WORKER_JOIN")"
	secret="$(relay_get "$KO_PARAM_CONTROL_PLANE_JOIN")"
	certificate_key="$(field certificate_key <<<"$secret")"
	endpoint="$(field endpoint <<<"$join")"
	token="$(field token <<<"$join")"
	hash="$(field ca_cert_hash <<<"$join")"
	step kubeadm-join
	quiet kubeadm join "$endpoint:6443" --control-plane --certificate-key "$certificate_key" \
		--token "$token" --discovery-token-ca-cert-hash "$hash"
	untaint_self
	step publish-joined
	relay_put_text "$KO_MARKER" String joined
}
