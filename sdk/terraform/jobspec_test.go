package terraform

import (
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
