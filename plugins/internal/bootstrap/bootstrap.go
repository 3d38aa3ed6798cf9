// Package bootstrap holds the user_data that turns a fresh Ubuntu EC2
// instance into a kubeadm control-plane member or worker without SSH.
//
// A providerless Terraform module (embedded, see Module) renders one bash
// script per node with templatefile(): a header of KO_* variables, then a
// plain-bash body read with file(). The nodes coordinate through SSM
// Parameter Store under Prefix(clusterID): member 0 runs kubeadm init and
// publishes the join data and the manager kubeconfig (a token of the
// ServiceAccount kubeopera-manager, renewed every 30 minutes by every
// control plane; admin.conf never leaves the machines); member i > 0 joins only
// after member i-1 reported "joined" (etcd members must join one at a time);
// workers join once member 0 is ready. Every node reports its state, or the
// step that failed, in its marker parameter, which the plugin reads with
// ParseMarker.
package bootstrap

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

//go:embed module
var files embed.FS

// ModuleDir is the directory name the module must have inside a module tree
// (modules/bootstrap), since the compute module calls it as ../bootstrap.
const ModuleDir = "bootstrap"

// Module returns the Terraform module's files: main.tf, the header template
// and the bash body files.
func Module() fs.FS {
	sub, err := fs.Sub(files, "module")
	if err != nil {
		panic(err) // the embedded directory is always there
	}
	return sub
}

// Prefix is the Parameter Store path all of a cluster's relay parameters
// are under when the module is rendered without a relay_nonce; the node
// roles may read and write below it only. The plugin's modules always set a
// nonce (a new one per provision): their path is PrefixWithNonce, read from
// the ssm_prefix output.
func Prefix(clusterID string) string { return "/kubeopera/" + clusterID }

// PrefixWithNonce is the relay path of one provision of a cluster.
func PrefixWithNonce(clusterID, nonce string) string { return Prefix(clusterID) + "/" + nonce }

// MemberUnder names the marker of control-plane member index under a
// relay path (Prefix or PrefixWithNonce).
func MemberUnder(prefix string, index int) string {
	return prefix + "/members/" + strconv.Itoa(index)
}

// AdminKubeconfigParameter names the SecureString that holds the
// kubeconfig KubeOpera manages the cluster with: the public endpoint and a
// 2-hour token of the cluster-admin ServiceAccount kubeopera-manager (not
// admin.conf, which never leaves the control planes). Member 0 writes it
// after kubeadm init and the CNI; every control plane writes a new one
// every 30 minutes.
func AdminKubeconfigParameter(clusterID string) string {
	return Prefix(clusterID) + "/admin-kubeconfig"
}

// WorkerJoinParameter names the SecureString with the join data every
// joining node reads: endpoint=, token= and ca_cert_hash= lines.
func WorkerJoinParameter(clusterID string) string { return Prefix(clusterID) + "/join/worker" }

// ControlPlaneJoinParameter names the SecureString with the
// certificate_key= line control-plane members join with.
func ControlPlaneJoinParameter(clusterID string) string {
	return Prefix(clusterID) + "/join/control-plane"
}

// MemberParameter names the marker of control-plane member index.
func MemberParameter(clusterID string, index int) string {
	return MemberUnder(Prefix(clusterID), index)
}

// WorkerParameter names the marker of the worker with an EC2 instance ID.
// Workers come from an Auto Scaling Group, so these names are not known in
// advance: list them by path (Prefix + "/workers/").
func WorkerParameter(clusterID, instanceID string) string {
	return Prefix(clusterID) + "/workers/" + instanceID
}

// State is what a node reports in its marker.
type State string

// The states a marker holds.
const (
	// Ready: member 0 ran kubeadm init, installed the CNI and published the
	// join data and the manager kubeconfig.
	Ready State = "ready"
	// Joined: a control-plane member i > 0 or a worker joined the cluster.
	Joined State = "joined"
	// Failed: the node stopped; Marker.Step says where.
	Failed State = "failed"
)

// Marker is a parsed marker value.
type Marker struct {
	State State
	// Step is the bootstrap step that failed, e.g. "kubeadm-join" or
	// "wait-for-member-1"; empty unless State is Failed.
	Step string
	// Reason is the failure message, without secrets; empty unless Failed.
	Reason string
}

// ErrBadMarker is returned for a value no bootstrap script writes.
var ErrBadMarker = errors.New("not a bootstrap marker")

// ParseMarker parses the value of a member or worker marker:
// "ready", "joined" or "failed: <step>: <reason>".
func ParseMarker(value string) (Marker, error) {
	switch State(value) {
	case Ready, Joined:
		return Marker{State: State(value)}, nil
	}
	rest, ok := strings.CutPrefix(value, string(Failed)+": ")
	if !ok {
		return Marker{}, fmt.Errorf("%w: %q", ErrBadMarker, value)
	}
	step, reason, _ := strings.Cut(rest, ": ")
	return Marker{State: Failed, Step: step, Reason: reason}, nil
}
