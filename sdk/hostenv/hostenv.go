// Package hostenv is how KubeOpera calls a provider plugin, in one place:
// the KubeOpera host (host/plugin), the REST server and the conformance kit
// (sdk/sdktest) all use it, so a plugin the kit passes is called the same
// way in production.
//
// It holds:
//
//   - the environment a plugin starts with (PluginEnv: an allow-list, none
//     of the host's secrets);
//   - the launch: the go-plugin client configuration with the KubeOpera
//     handshake and mutual TLS with throwaway identities made for each
//     launch (ClientConfig);
//   - the host's timeouts (StartTimeout, CallTimeout);
//   - the inputs and credential a call carries, built from what a user
//     asked for (BuildCall): the schema's defaults applied, the stored
//     credential the credential input names with its "kind" key, the
//     kind checked against the input's, secret inputs kept apart.
package hostenv

import "time"

// The host's timeouts. An operator can change them (the host's Options);
// these are the defaults, and what the conformance kit uses.
const (
	// StartTimeout bounds a plugin's start: the process runs, prints its
	// handshake line and answers the TLS handshake.
	StartTimeout = 10 * time.Second
	// CallTimeout bounds every call (GetInfo, Validate, Provision, Status,
	// Kubeconfig, Destroy, Update) unless the caller's own deadline is
	// shorter. Provision, Update and Destroy return an operation at once;
	// the work runs behind it and Status follows it, so no call needs long.
	CallTimeout = 60 * time.Second
)

// ControlPlaneLabel is the label kubeadm puts on control-plane nodes; the
// host counts a cluster's other nodes as its workers (the node count a
// plugin reports and Update takes).
const ControlPlaneLabel = "node-role.kubernetes.io/control-plane"
