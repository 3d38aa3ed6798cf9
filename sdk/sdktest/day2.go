package sdktest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/hostenv"
)

// This file holds the day-2 checks: a provider that declares "scale" or
// "upgrade" changes a running cluster through sdk.Updater.

// updater is the plugin's Update as the host calls it (the connection's
// client always has it; a plugin without it answers Unimplemented).
func (k *kit) updater(t *testing.T) sdk.Updater {
	u, ok := k.prov.(sdk.Updater)
	if !ok {
		t.Fatalf("the SDK's client does not implement sdk.Updater")
	}
	return u
}

// day2Sane checks the declarations Update relies on: a scale provider names
// its node-count input (an int), and every upgrade an upgrade provider
// lists is one the host will let through (no downgrade, no skipped minor).
func (k *kit) day2Sane(t *testing.T) {
	i := k.info
	if i.Has(sdk.CapScale) {
		if f, ok := inputNamed(i.Schema, i.NodeCountInput); !ok || f.Type != sdk.Int {
			t.Errorf("the provider declares %q but Info.NodeCountInput %q is not an int input of its schema", sdk.CapScale, i.NodeCountInput)
		}
	}
	if i.VersionInput != "" {
		if _, ok := inputNamed(i.Schema, i.VersionInput); !ok {
			t.Errorf("Info.VersionInput %q is not an input of the schema", i.VersionInput)
		}
	}
	if i.Has(sdk.CapUpgrade) && len(i.Upgrades) == 0 {
		t.Errorf("the provider declares %q but lists no Info.Upgrades", sdk.CapUpgrade)
	}
	if !i.Has(sdk.CapUpgrade) && len(i.Upgrades) > 0 {
		t.Errorf("Info.Upgrades lists upgrades but the provider does not declare %q", sdk.CapUpgrade)
	}
	for _, u := range i.Upgrades {
		for _, to := range u.To {
			if err := sdk.CheckUpgrade(i, u.From, to); err != nil {
				t.Errorf("Info.Upgrades offers %s → %s, which the host refuses: %v", u.From, to, err)
			}
		}
	}
}

func inputNamed(schema []sdk.InputField, name string) (sdk.InputField, bool) {
	for _, f := range schema {
		if f.Name == name && name != "" {
			return f, true
		}
	}
	return sdk.InputField{}, false
}

// update starts req twice (Update must be idempotent), follows it to its
// end and returns the final status.
func (k *kit) update(t *testing.T, what string, req sdk.UpdateRequest) sdk.OperationStatus {
	t.Helper()
	u := k.updater(t)
	req = k.asTheHost(req)
	op, err := u.Update(k.ctx(t), req)
	if err != nil {
		t.Fatalf("Update (%s): %v", what, err)
	}
	again, err := u.Update(k.ctx(t), req)
	if err != nil {
		t.Fatalf("Update (%s) a second time: %v (Update must be idempotent)", what, err)
	}
	if again.ID != op.ID {
		t.Errorf("Update (%s) is not idempotent: the same request gave operations %q and %q", what, op.ID, again.ID)
	}
	st := k.follow(t, "Update ("+what+")", op.ID)
	if st.State != sdk.Succeeded {
		t.Fatalf("Update (%s) ended %s (%s): %s", what, st.State, st.ErrorClass, st.Message)
	}
	k.observe(st, req.NodeCount, req.KubernetesVersion)
	return st
}

// asTheHost completes req as the host sends it: the call's inputs and
// credential, and the cluster as last observed (its version, and the
// current inputs hostenv.CurrentInputs makes from it).
func (k *kit) asTheHost(req sdk.UpdateRequest) sdk.UpdateRequest {
	req.Inputs, req.Credentials = k.call.Inputs, k.call.Credentials
	req.CurrentKubernetesVersion = k.observed.KubernetesVersion
	req.CurrentInputs = hostenv.CurrentInputs(k.info, k.call.Inputs, k.observed.NodeCount, k.observed.KubernetesVersion)
	return req
}

// observe records the cluster after an operation that succeeded: what its
// Status reported, else what was asked for (0 and "": unchanged).
func (k *kit) observe(st sdk.OperationStatus, nodes int, version string) {
	if st.NodeCount != 0 {
		nodes = st.NodeCount
	}
	if st.KubernetesVersion != "" {
		version = st.KubernetesVersion
	}
	if nodes != 0 {
		k.observed.NodeCount = nodes
	}
	if version != "" {
		k.observed.KubernetesVersion = version
	}
}

// day2 runs on a provisioned cluster: scale up and back down, upgrade along
// the first upgrade Info offers from the cluster's version, and a downgrade
// and a skipped minor refused as InvalidInput naming kubernetesVersion.
func (k *kit) day2(t *testing.T, id string, provisioned sdk.OperationStatus, api *apiServer) {
	if k.info.Has(sdk.CapScale) {
		t.Run("Scale", func(t *testing.T) { k.scale(t, id, provisioned, api) })
	}
	if k.info.Has(sdk.CapUpgrade) {
		t.Run("Upgrade", func(t *testing.T) { k.upgrade(t, id, provisioned, api) })
	}
}

func (k *kit) scale(t *testing.T, id string, provisioned sdk.OperationStatus, api *apiServer) {
	n := provisioned.NodeCount
	if n == 0 {
		n, _ = strconv.Atoi(k.call.Inputs[k.info.NodeCountInput])
	}
	if n == 0 {
		t.Fatalf("cannot tell the cluster's node count: report it in OperationStatus.NodeCount or give %s in Config.ValidInputs", k.info.NodeCountInput)
	}
	up := n + 1
	if sdk.CheckNodeCount(k.info, up) != nil {
		up = n - 1
	}
	if err := sdk.CheckNodeCount(k.info, up); err != nil {
		t.Skipf("the node-count bounds leave no other count than %d: %v", n, err)
	}
	for _, want := range []int{up, n} {
		what := fmt.Sprintf("scale to %d", want)
		st := k.update(t, what, sdk.UpdateRequest{ClusterID: id, NodeCount: want})
		if st.NodeCount != 0 && st.NodeCount != want {
			t.Errorf("after scaling to %d, Status reports %d nodes", want, st.NodeCount)
		}
		k.checkNodes(t, api, "Update ("+what+")", reportedNodes(st, want))
	}
	if over := outOfBounds(k.info); over != 0 {
		_, err := k.updater(t).Update(k.ctx(t), k.asTheHost(sdk.UpdateRequest{ClusterID: id, NodeCount: over}))
		expectRefusal(t, fmt.Sprintf("scaling to %d nodes (outside the input's bounds)", over), err, "nodeCount")
	}
}

// outOfBounds is a node count beyond the node-count input's Max (or 0).
func outOfBounds(info sdk.Info) int {
	if f, ok := inputNamed(info.Schema, info.NodeCountInput); ok && f.Max != nil {
		return int(*f.Max) + 1
	}
	return 0
}

func (k *kit) upgrade(t *testing.T, id string, provisioned sdk.OperationStatus, api *apiServer) {
	from := provisioned.KubernetesVersion
	if from == "" && k.info.VersionInput != "" {
		from = k.call.Inputs[k.info.VersionInput]
	}
	var to string
	for _, u := range k.info.Upgrades {
		if u.From == from && len(u.To) > 0 {
			to = u.To[0]
		}
	}
	if to == "" {
		t.Fatalf("Info.Upgrades offers nothing from the provisioned cluster's version %q (report it in OperationStatus.KubernetesVersion)", from)
	}
	u := k.updater(t)
	skipped := skipMinor(from)
	_, err := u.Update(k.ctx(t), k.asTheHost(sdk.UpdateRequest{ClusterID: id, KubernetesVersion: skipped}))
	expectRefusal(t, "an upgrade from "+from+" to "+skipped+" (a skipped minor)", err, "kubernetesVersion")

	st := k.update(t, "upgrade to "+to, sdk.UpdateRequest{ClusterID: id, KubernetesVersion: to})
	if st.KubernetesVersion != "" && st.KubernetesVersion != to {
		t.Errorf("after upgrading to %s, Status reports version %s", to, st.KubernetesVersion)
	}
	k.checkNodes(t, api, "Update (upgrade to "+to+")", reportedNodes(st, 0))
	_, err = u.Update(k.ctx(t), k.asTheHost(sdk.UpdateRequest{ClusterID: id, KubernetesVersion: from}))
	expectRefusal(t, "a downgrade from "+to+" to "+from, err, "kubernetesVersion")
}

// skipMinor is from with its minor version raised by two.
func skipMinor(from string) string {
	parts := strings.Split(strings.TrimPrefix(from, "v"), ".")
	if len(parts) < 2 {
		return "1.99"
	}
	minor, _ := strconv.Atoi(parts[1])
	return parts[0] + "." + strconv.Itoa(minor+2)
}

// expectRefusal fails unless err is an InvalidInput error naming field.
func expectRefusal(t *testing.T, what string, err error, field string) {
	t.Helper()
	if !errors.Is(err, sdk.ErrInvalidInput) {
		t.Errorf("Update accepted %s (answered %v); refuse it with sdk.InvalidInput naming %q (sdk.CheckUpgrade and sdk.CheckNodeCount do)", what, err, field)
		return
	}
	for _, f := range sdk.FieldErrors(err) {
		if f.Field == field {
			return
		}
	}
	t.Errorf("Update refused %s without naming field %q: %v", what, field, err)
}

// updateUndeclared is what undeclaredUnimplemented calls for "scale" and
// "upgrade": an Update asking for that change alone.
func (k *kit) updateUndeclared(t *testing.T, c sdk.Capability) error {
	req := sdk.UpdateRequest{ClusterID: "sdktest-undeclared", Inputs: k.cfg.ValidInputs, NodeCount: 2}
	if c == sdk.CapUpgrade {
		req = sdk.UpdateRequest{ClusterID: "sdktest-undeclared", Inputs: k.cfg.ValidInputs, KubernetesVersion: "1.1"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), k.cfg.Timeout)
	defer cancel()
	_, err := k.updater(t).Update(ctx, req)
	return err
}
