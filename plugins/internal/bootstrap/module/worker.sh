# ---- worker.sh: join as a worker once member 0 is ready ----

worker_main() {
	local join endpoint token hash node
	install_node
	step wait-for-control-plane
	relay_wait "$KO_PARAM_MEMBERS/0" "control-plane member 0"
	step read-join-data
	join="$(relay_get "$KO_PARAM_WORKER_JOIN")"
	endpoint="$(field endpoint <<<"$join")"
	token="$(field token <<<"$join")"
	hash="$(field ca_cert_hash <<<"$join")"
	node="$(node_name)"
	step kubeadm-join
	join_config "$endpoint" "$token" "$hash" "$node" >"$KO_WORK/kubeadm.yaml"
	kubeadm_tries join --config "$KO_WORK/kubeadm.yaml"
	rm -f "$KO_WORK/kubeadm.yaml"
	step publish-joined
	relay_put_text "$KO_MARKER" String joined
}
