package terraform

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestConfigMapKeysAreValidAndUnique(t *testing.T) {
	files := map[string][]byte{
		"main.tf": []byte("# root"), "modules/vpc/main.tf": []byte("# vpc"), "modules--vpc--main.tf": []byte("# flat twin"),
		"modules/eks/files/user data.sh": []byte("#!/bin/sh"), ".terraform.lock.hcl": []byte("# lock"),
		"modules/eks/" + strings.Repeat("x", 300) + ".tf": []byte("# long"), "bin/blob": {0xff, 0xfe, 0x00},
	}
	s := jobSpec{run: Run{ID: "c1", Action: Apply, Module: Module{Files: files}}, namespace: "ns"}
	cm, items := s.moduleConfigMap()
	seen := map[string]bool{}
	for _, it := range items {
		if errs := validation.IsConfigMapKey(it.Key); len(errs) > 0 {
			t.Errorf("key %q for %s: %v", it.Key, it.Path, errs)
		}
		if seen[it.Key] {
			t.Errorf("key %q used twice", it.Key)
		}
		seen[it.Key] = true
		got, ok := cm.Data[it.Key]
		if !ok {
			got = string(cm.BinaryData[it.Key])
		}
		if got != string(files[it.Path]) {
			t.Errorf("key %q does not hold %s", it.Key, it.Path)
		}
	}
	if len(items) != len(files) || len(cm.BinaryData) != 1 {
		t.Errorf("%d items for %d files, %d binary keys (want 1)", len(items), len(files), len(cm.BinaryData))
	}
}

func TestJobScriptIsValidShell(t *testing.T) {
	for _, a := range []Action{Apply, Destroy} {
		s := Jobs{}.spec(Run{ID: "c1", Action: a, Module: Module{Files: map[string][]byte{"main.tf": nil}}})
		script := s.script()
		if out, err := exec.Command("/bin/sh", "-n", "-c", script).CombinedOutput(); err != nil {
			t.Errorf("%s script: %v\n%s\n%s", a, err, out, script)
		}
		want := "\ntf " + string(a) + " -auto-approve -input=false -no-color -lock-timeout=6m0s"
		if !strings.Contains(script, want) {
			t.Errorf("%s script lacks %q:\n%s", a, want, script)
		}
		if s.backoffLimit != DefaultBackoffLimit || s.image != DefaultImage || s.namespace != DefaultNamespace {
			t.Errorf("defaults: backoff %d, image %s, namespace %s", s.backoffLimit, s.image, s.namespace)
		}
	}
}

// An update run is its own Job (update-<id>-<n>, with its ConfigMap and
// env Secret), and its script takes only an update pod's lock for stale:
// never the first apply's. A destroy takes all three. The shell itself
// decides here, with the case pattern the script uses.
func TestUpdateJobIsNamedForItsGenerationAndTakesOnlyUpdateLocks(t *testing.T) {
	m := Module{Files: map[string][]byte{"main.tf": []byte("# x\n")}}
	s := Jobs{}.spec(Run{ID: "c1", Action: Apply, Generation: 2, Module: m})
	cm, items := s.moduleConfigMap()
	job, sec := s.job(items), s.envSecret()
	if job.Name != "update-c1-2" || cm.Name != "update-c1-2" || sec.Name != "update-c1-2-env" ||
		job.Spec.Template.Spec.Containers[0].EnvFrom[0].SecretRef.Name != sec.Name {
		t.Errorf("objects named job %s, configmap %s, secret %s", job.Name, cm.Name, sec.Name)
	}
	if job.Labels[LabelGeneration] != "2" || job.Spec.Template.Labels[LabelClusterID] != "c1" {
		t.Errorf("labels %v", job.Spec.Template.Labels)
	}
	holders := map[string]bool{"update-c1-1-x7k2p": true, "update-c1-2-abcde": true, "provision-c1-abcde": false,
		"destroy-c1-abcde": false, "update-c2-1-abcde": false}
	destroy := Jobs{}.spec(Run{ID: "c1", Action: Destroy, Module: m})
	for who, stale := range holders {
		for _, c := range []struct {
			spec jobSpec
			want bool
		}{{s, stale}, {destroy, who != "update-c2-1-abcde"}} {
			script := fmt.Sprintf(`case "%s" in %s) echo stale ;; *) echo kept ;; esac`, who, c.spec.staleHolders())
			out, err := exec.Command("/bin/sh", "-c", script).Output()
			if got := strings.TrimSpace(string(out)) == "stale"; err != nil || got != c.want {
				t.Errorf("%s run: a lock of pod %s taken for stale = %v (%v), want %v", runName(c.spec.run), who, got, err, c.want)
			}
		}
	}
	if !strings.Contains(s.script(), s.staleHolders()) {
		t.Error("the script does not use staleHolders")
	}
}
