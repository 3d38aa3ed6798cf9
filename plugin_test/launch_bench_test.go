package plugin_test

import (
	"context"
	"crypto/sha256"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/internal/testkit/benchsummary"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// BenchmarkLaunchAWS measures starting the AWS EKS plugin (the largest
// binary) in parts: one SHA-256 of the binary (Open hashes it while the
// process starts; a restart checks the file's stamp instead), the
// process start with the mTLS handshake and GetInfo alone, the plugin's
// own package initialisation (GODEBUG=inittrace, which no host can
// shorten), and the host's whole Open (discovery, checksum, start,
// handshake, GetInfo). The goal is a whole launch within 50ms. Its floor
// is the whole Open of gcp-stub, the smallest plugin the SDK makes (the
// SDK, go-plugin and gRPC, no provider code), opened in the same loop:
// what any plugin costs on this machine before its own code.
func BenchmarkLaunchAWS(b *testing.B) {
	const name = "aws-eks"
	bin := built.plugins[name]
	st, err := os.Stat(bin)
	if err != nil {
		b.Fatal(err)
	}
	dir, stubDir := pluginDir(b, name), pluginDir(b, "gcp-stub")
	var checksum, handshake, open, stubOpen []time.Duration
	initMs := packageInitMs(b, bin)
	for b.Loop() {
		t0 := time.Now()
		hashFile(b, bin)
		t1 := time.Now()
		started := startOnly(b, bin)
		checksum, handshake = append(checksum, t1.Sub(t0)), append(handshake, started)
		// Which goes first alternates, so neither always follows the
		// other's exit.
		if len(open)%2 == 0 {
			open = append(open, timeOpen(b, dir))
			stubOpen = append(stubOpen, timeOpen(b, stubDir))
		} else {
			stubOpen = append(stubOpen, timeOpen(b, stubDir))
			open = append(open, timeOpen(b, dir))
		}
	}
	ms := func(d []time.Duration) float64 { return percentile(d, 0.5) / 1e6 }
	b.ReportMetric(float64(st.Size())/(1<<20), "binary-MiB")
	b.ReportMetric(ms(checksum), "checksum-ms")
	b.ReportMetric(ms(handshake), "start+handshake-ms")
	b.ReportMetric(ms(open), "open-ms")
	b.ReportMetric(ms(stubOpen), "stub-open-ms")
	b.ReportMetric(initMs, "package-init-ms")
	benchsummary.Print(benchsummary.Figure{Name: "plugin launch aws-eks: whole Open (floor: the SDK's smallest plugin)",
		Value: ms(open), Floor: ms(stubOpen), Unit: "ms", Op: "<=", Limit: 50, Absolute: true})
	benchsummary.Print(benchsummary.Figure{Name: "plugin launch aws-eks: one checksum (overlaps the start)", Value: ms(checksum), Unit: "ms"})
	benchsummary.Print(benchsummary.Figure{Name: "plugin launch aws-eks: start+handshake+GetInfo (a restart)", Value: ms(handshake), Unit: "ms"})
	benchsummary.Print(benchsummary.Figure{Name: "plugin launch aws-eks: of which the plugin's package init", Value: initMs, Unit: "ms"})
}

// timeOpen returns how long the host's Open of the one plugin in dir
// takes, not counting its Close.
func timeOpen(b *testing.B, dir string) time.Duration {
	start := time.Now()
	h, err := plugin.Open(context.Background(), plugin.Options{Dir: dir, Logger: hclog.NewNullLogger()})
	if err != nil || len(h.Plugins()) != 1 {
		b.Fatalf("open %s: %v (skipped: %+v)", dir, err, h.Skipped())
	}
	took := time.Since(start)
	h.Close()
	return took
}

func hashFile(b *testing.B, path string) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := io.Copy(sha256.New(), f); err != nil {
		b.Fatal(err)
	}
}

// startOnly starts the plugin through go-plugin without a checksum, reads
// its Info and kills it; it returns the time to the Info, not the kill's.
func startOnly(b *testing.B, bin string) time.Duration {
	start := time.Now()
	cfg := sdk.ClientConfig(exec.Command(bin))
	cfg.Logger = hclog.NewNullLogger()
	client := goplugin.NewClient(cfg)
	defer client.Kill()
	prov, err := sdk.Connect(client)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := prov.GetInfo(context.Background()); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// packageInitMs runs bin once with GODEBUG=inittrace=1 and sums the clock
// time of its packages' init functions. Without the handshake cookie the
// plugin exits right after them, so the run's exit status is ignored.
func packageInitMs(b *testing.B, bin string) float64 {
	cmd := exec.Command(bin)
	cmd.Env = []string{"GODEBUG=inittrace=1"}
	out, _ := cmd.CombinedOutput()
	total := 0.0
	for _, line := range strings.Split(string(out), "\n") {
		// init <package> @<start> ms, <clock> ms clock, <bytes> bytes, <allocs> allocs
		f := strings.Fields(line)
		if len(f) >= 7 && f[0] == "init" && f[6] == "clock," {
			v, err := strconv.ParseFloat(f[4], 64)
			if err != nil {
				b.Fatalf("inittrace line %q: %v", line, err)
			}
			total += v
		}
	}
	if total == 0 {
		b.Fatalf("no inittrace output from %s:\n%s", bin, out)
	}
	return total
}
