package node

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// A root that needs no provider download: terraform_data is built in, and
// so is the kubernetes backend the Job's init configures.
const jobRoot = `terraform {
  backend "kubernetes" {}
}

resource "terraform_data" "cluster" {
  input = "%s"
}

output "id" {
  value = terraform_data.cluster.output
}
`

// sdk/terraform's Job executor runs terraform in a pod on the node: the
// pod reaches the API server through the kubernetes Service (kube-proxy's
// rules to the advertised address, which the node serves; the sandbox's
// certificate for 10.0.0.1; a projected service account token) to keep
// its state in the kubernetes backend, and `kubectl logs
// job/provision-<id>` shows the apply.
func TestTerraformJobAppliesOnTheNode(t *testing.T) {
	s, n := requireNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	kube, err := terraform.NewKube(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	jobs := terraform.Jobs{Client: kube, Image: terraformImage(t), BackoffLimit: -1}
	if err := jobs.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	id := "node-" + rand.String(6)
	run := terraform.Run{ID: id, Action: terraform.Apply,
		Module: terraform.Module{Files: map[string][]byte{"main.tf": []byte(strings.Replace(jobRoot, "%s", id, 1))}}}
	if err := jobs.Start(ctx, run); err != nil {
		t.Fatal(err)
	}
	var st terraform.Status
	err = wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
		st, err = jobs.Status(ctx, id, terraform.Apply)
		return err == nil && (st.State == sdk.Succeeded || st.State == sdk.Failed), nil
	})
	if err != nil || st.State != sdk.Succeeded {
		t.Fatalf("job did not succeed (%v): %+v%s", err, st, logsHint())
	}
	pods, err := s.Client.CoreV1().Pods(terraform.DefaultNamespace).List(ctx,
		metav1.ListOptions{LabelSelector: terraform.LabelClusterID + "=" + id})
	if err != nil || len(pods.Items) != 1 || pods.Items[0].Spec.NodeName != n.Name {
		t.Fatalf("the job's pods: %v, %+v; want one on node %s", err, pods, n.Name)
	}
	log := kubectl(t, s, "logs", "-n", terraform.DefaultNamespace, "job/"+terraform.JobName(id, terraform.Apply))
	if !strings.Contains(log, "Apply complete! Resources: 1 added") {
		t.Errorf("kubectl logs job/provision-%s shows no completed apply:\n%s", id, log)
	}
	outputs, err := jobs.Outputs(ctx, id)
	if err != nil {
		t.Fatalf("outputs from the state in the kubernetes backend: %v", err)
	}
	var got string
	if err := json.Unmarshal(outputs["id"], &got); err != nil || got != id {
		t.Errorf("output id = %s (%v), want %q", outputs["id"], err, id)
	}
}
