package plugin

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDiscover(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("kubeopera-provider-b", 0o755)
	write("kubeopera-provider-a", 0o755)
	write("kubeopera-provider-off", 0o644)
	write("kubeopera-provider-", 0o755)
	write("notes.md", 0o644)
	if err := os.Mkdir(filepath.Join(dir, "kubeopera-provider-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	cands, skipped, err := discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 2 || cands[0].Name != "a" || cands[1].Name != "b" {
		t.Fatalf("candidates = %+v, want a and b in order", cands)
	}
	if cands[0].Checksum != nil {
		t.Errorf("candidate a = %+v; want no checksum yet (Open hashes it as it starts)", cands[0])
	}
	reasons := map[string]Reason{}
	for _, s := range skipped {
		reasons[filepath.Base(s.Path)] = s.Reason
	}
	want := map[string]Reason{"kubeopera-provider-off": NotExecutable, "kubeopera-provider-": NotAPlugin, "notes.md": NotAPlugin}
	if len(reasons) != len(want) {
		t.Errorf("skipped = %v, want %v (directories ignored)", reasons, want)
	}
	for n, r := range want {
		if reasons[n] != r {
			t.Errorf("%s: reason %q, want %q", n, reasons[n], r)
		}
	}
}

func TestDiscoverUnreadableDirectoryIsAnError(t *testing.T) {
	if _, _, err := discover(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("want an error for a missing directory")
	}
}
