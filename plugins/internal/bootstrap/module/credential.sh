# ---- credential.sh: the management side's own, expiring credential ----
#
# KubeOpera's management side never gets admin.conf (a client certificate
# valid a year, which nothing can revoke) and admin.conf never leaves the
# control planes. Member 0 creates the ServiceAccount kubeopera-manager,
# bound to cluster-admin; every control plane publishes a kubeconfig with
# a token of it that lasts KO_MANAGER_TOKEN_TTL (2 h), again every 30
# minutes from a timer, so the parameter always holds a token with over
# an hour left. The plugin reads its expiry from the token and the host
# fetches a new one through the plugin before it runs out.

KO_MANAGER_ACCOUNT=kubeopera-manager
KO_MANAGER_TOKEN_TTL=2h

# create_manager_account applies the ServiceAccount and its binding
# (idempotent: a re-run of init or a second member changes nothing).
create_manager_account() {
	local file="$KO_WORK/manager.yaml"
	step create-manager-account
	cat >"$file" <<EOF_MANAGER
apiVersion: v1
kind: ServiceAccount
metadata:
  name: $KO_MANAGER_ACCOUNT
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: $KO_MANAGER_ACCOUNT
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
- kind: ServiceAccount
  name: $KO_MANAGER_ACCOUNT
  namespace: kube-system
EOF_MANAGER
	kubectl_tries apply -f "$file"
}

# publish_manager_kubeconfig ENDPOINT publishes a kubeconfig for the API at
# ENDPOINT (the public one KubeOpera reaches) with a new token of the
# manager account, encrypted with the cluster's KMS key. The token is never
# on a command line or the console: it goes from kubectl's output to a
# root-only file.
publish_manager_kubeconfig() {
	local file ca token
	step publish-manager-kubeconfig
	ca="$(sed -n 's/^[[:space:]]*certificate-authority-data:[[:space:]]*//p' "$KO_KUBECONFIG" | head -n 1)"
	if [ -z "$ca" ]; then
		fail "$KO_KUBECONFIG has no certificate-authority-data to build the manager kubeconfig from"
	fi
	token="$(retry kubectl --kubeconfig "$KO_KUBECONFIG" -n kube-system create token "$KO_MANAGER_ACCOUNT" \
		--duration "$KO_MANAGER_TOKEN_TTL" 2>>"$KO_LOG")" ||
		fail "kubectl create token failed 5 times (details in /var/log/kubeopera/bootstrap.log)"
	file="$(mktemp "$KO_WORK/kubeconfig.XXXXXX")"
	printf '%s\n' 'apiVersion: v1' 'kind: Config' 'clusters:' '- name: kubeopera' '  cluster:' \
		"    certificate-authority-data: $ca" "    server: https://$1:6443" 'users:' \
		"- name: $KO_MANAGER_ACCOUNT" '  user:' "    token: $token" 'contexts:' \
		"- name: $KO_MANAGER_ACCOUNT" '  context:' '    cluster: kubeopera' "    user: $KO_MANAGER_ACCOUNT" \
		"current-context: $KO_MANAGER_ACCOUNT" >"$file"
	relay_put "$KO_PARAM_ADMIN_KUBECONFIG" SecureString "$file" Intelligent-Tiering "$KO_KUBECONFIG_KMS_KEY"
	rm -f "$file"
}

# install_credential_refresher runs the script with refresh-credential
# every 30 minutes (a quarter of the token's life: three failed runs in a
# row still leave a valid token).
install_credential_refresher() {
	local unit="$KO_ROOT/etc/systemd/system/kubeopera-refresh-credential"
	printf '%s\n' '[Unit]' 'Description=Publish a new KubeOpera manager token' '' '[Service]' 'Type=oneshot' 'Environment=HOME=/root' \
		'ExecStart=/usr/local/sbin/kubeopera-bootstrap refresh-credential' >"$unit.service"
	printf '%s\n' '[Unit]' 'Description=Publish a new KubeOpera manager token every 30 minutes' '' '[Timer]' \
		'OnBootSec=2min' 'OnUnitActiveSec=30min' 'RandomizedDelaySec=2min' '' '[Install]' 'WantedBy=timers.target' >"$unit.timer"
	systemctl daemon-reload
	systemctl enable --now kubeopera-refresh-credential.timer
}

# refresh_credential publishes a new token for the public endpoint (or,
# without one, the endpoint in the join data). A failure is logged, never
# written over this member's marker.
refresh_credential() {
	local endpoint="$KO_PUBLIC_ENDPOINT"
	KO_STEP=refresh-credential KO_MARKER=
	if [ -z "$endpoint" ]; then
		endpoint="$(field endpoint <<<"$(relay_get "$KO_PARAM_WORKER_JOIN")")"
	fi
	publish_manager_kubeconfig "$endpoint"
	log "manager token refreshed"
}
