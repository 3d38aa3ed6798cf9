package kubeconfig

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"testing"
)

// TestMain keeps the package's tests off the network: Validate resolves a
// server's host name to refuse metadata addresses, and the names in these
// kubeconfigs (dev.example.com, ...) would go to the machine's name
// server. A test that needs answers sets resolve itself.
func TestMain(m *testing.M) {
	resolve = func(context.Context, string) ([]netip.Addr, error) {
		return nil, errors.New("no name look-ups in tests")
	}
	os.Exit(m.Run())
}
