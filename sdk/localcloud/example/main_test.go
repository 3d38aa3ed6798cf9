package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/sdk/localcloud"
	"github.com/ochestra-tech/kubeopera/sdk/sdktest"
)

// The README's local-cloud walkthrough passes the whole conformance kit:
// real clusters provisioned, dialed, scaled 1 → 2 → 1 (the node count read
// on each cluster's own API server) and destroyed, leaving no process and
// no directory.
func TestFakecloudPassesTheKitOnTheLocalCloud(t *testing.T) {
	bin, err := localcloud.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	plugin := sdktest.Build(t, ".", "fakecloud")
	sdktest.Run(t, sdktest.Config{Binary: plugin, ValidInputs: map[string]string{"nodes": "1"},
		Env: []string{localcloud.RootEnv + "=" + root, localcloud.TestbinEnv + "=" + bin}})
	if left := localcloud.ProcessesUnder(root); len(left) > 0 {
		t.Errorf("processes left after the kit: %v", left)
	}
	if left, _ := filepath.Glob(filepath.Join(root, "*")); len(left) > 0 {
		t.Errorf("cluster directories left after the kit: %v", left)
	}
	if err := localcloud.RemoveAll(root); err != nil {
		t.Error(err)
	}
}

// The SDK README shows exactly the file that is tested.
func TestReadmeShowsTheFakecloudExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+string(src)+"```") {
		t.Fatal("sdk/README.md does not contain localcloud/example/main.go verbatim; paste the file into the README again")
	}
	if n := strings.Count(string(src), "\n"); !strings.Contains(string(readme), fmt.Sprintf("%d lines", n)) {
		t.Errorf("sdk/README.md does not give the example's length, %d lines", n)
	}
}
