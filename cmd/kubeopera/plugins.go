package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/sdk/hostenv"
)

func newPluginsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "plugins", Short: "Inspect provider plugins"}
	cmd.AddCommand(newPluginsListCommand(), newPluginsInspectCommand())
	return cmd
}

type listOptions struct {
	dir          string
	output       string
	logLevel     string
	startTimeout time.Duration
}

func newPluginsListCommand() *cobra.Command {
	o := listOptions{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Start every provider plugin in the plugin directory and list what each reports",
		Long: "Start every kubeopera-provider-<name> binary in the plugin directory, verify it, and print\n" +
			"name, version, protocol, availability, path and checksum; then one line per file skipped\n" +
			"and why. Exits non-zero when the directory cannot be read.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := o.openHost(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			if o.output == "json" {
				return writeListJSON(cmd.OutOrStdout(), h.Plugins(), h.Skipped())
			}
			return writeListTable(cmd.OutOrStdout(), h.Plugins(), h.Skipped())
		},
	}
	cmd.Flags().StringVar(&o.dir, "plugin-dir", plugin.DirFromEnv(), "directory of plugin binaries (env KUBEOPERA_PLUGIN_DIR)")
	cmd.Flags().StringVarP(&o.output, "output", "o", "table", "output format: table or json")
	cmd.Flags().StringVar(&o.logLevel, "log-level", envOr("KUBEOPERA_LOG_LEVEL", "warn"), "log level of plugin output on stderr")
	cmd.Flags().DurationVar(&o.startTimeout, "start-timeout", hostenv.StartTimeout, "how long a plugin may take to start and complete its handshake")
	return cmd
}

// listedPlugin is the JSON form of one plugin; field names are part of the
// CLI's interface for scripts.
type listedPlugin struct {
	Name            string   `json:"name"`
	DisplayName     string   `json:"displayName"`
	Cloud           string   `json:"cloud"`
	Version         string   `json:"version"`
	SDKVersion      string   `json:"sdkVersion"`
	ProtocolVersion int      `json:"protocolVersion"`
	Availability    string   `json:"availability"`
	Capabilities    []string `json:"capabilities"`
	Path            string   `json:"path"`
	SHA256          string   `json:"sha256"`
	Health          string   `json:"health"`
	LastError       string   `json:"lastError,omitempty"`
}

func writeListJSON(w io.Writer, plugins []plugin.Plugin, skipped []plugin.Skipped) error {
	out := struct {
		Plugins []listedPlugin   `json:"plugins"`
		Skipped []plugin.Skipped `json:"skipped"`
	}{Plugins: []listedPlugin{}, Skipped: skipped}
	if out.Skipped == nil {
		out.Skipped = []plugin.Skipped{}
	}
	for _, p := range plugins {
		caps := []string{}
		for _, c := range p.Info.Capabilities {
			caps = append(caps, string(c))
		}
		out.Plugins = append(out.Plugins, listedPlugin{
			Name: p.Name, DisplayName: p.Info.DisplayName, Cloud: p.Info.Cloud, Version: p.Info.PluginVersion,
			SDKVersion: p.Info.SDKVersion, ProtocolVersion: p.Info.ProtocolVersion,
			Availability: string(p.Info.Availability), Capabilities: caps, Path: p.Path, SHA256: p.Checksum,
			Health: healthOf(p), LastError: p.LastError,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func writeListTable(w io.Writer, plugins []plugin.Plugin, skipped []plugin.Skipped) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDISPLAY NAME\tVERSION\tPROTOCOL\tAVAILABILITY\tHEALTH\tSHA256\tPATH")
	for _, p := range plugins {
		fmt.Fprintf(tw, "%s\t%s\t%s\tv%d\t%s\t%s\t%s\t%s\n", p.Name, p.Info.DisplayName, p.Info.PluginVersion,
			p.Info.ProtocolVersion, p.Info.Availability, healthOf(p), p.Checksum[:12], p.Path)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(plugins) == 0 {
		fmt.Fprintln(w, "no provider plugins loaded")
	}
	for _, p := range plugins {
		if p.Health == plugin.Degraded {
			fmt.Fprintf(w, "degraded %s: %s\n", p.Name, p.LastError)
		}
	}
	for _, s := range skipped {
		fmt.Fprintf(w, "skipped %s: %s: %s\n", s.Path, s.Reason, strings.ReplaceAll(s.Detail, "\n", " "))
	}
	return nil
}

func healthOf(p plugin.Plugin) string {
	if p.Health == "" {
		return string(plugin.Healthy)
	}
	return string(p.Health)
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// envList splits a comma-separated environment variable; nil when unset.
func envList(key string) []string {
	if v := os.Getenv(key); v != "" {
		return strings.Split(v, ",")
	}
	return nil
}

// openHost checks --output and starts the plugins of the plugin directory,
// logging to stderr; `plugins list` and `plugins inspect` share it.
func (o listOptions) openHost(cmd *cobra.Command) (*plugin.Host, error) {
	if o.output != "table" && o.output != "json" {
		return nil, fmt.Errorf("--output %q: use table or json", o.output)
	}
	log := hclog.New(&hclog.LoggerOptions{Name: "plugins", Output: cmd.ErrOrStderr(),
		Level: hclog.LevelFromString(o.logLevel)})
	return plugin.Open(cmd.Context(), plugin.Options{Dir: o.dir, Logger: log, StartTimeout: o.startTimeout})
}
