package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/sdk"
)

func newPluginsInspectCommand() *cobra.Command {
	o := listOptions{}
	cmd := &cobra.Command{
		Use:   "inspect NAME",
		Short: "Show what one provider plugin declares: capabilities, input schema and credential kinds",
		Long: "Start the provider plugin NAME from the plugin directory and print everything it declares:\n" +
			"its capabilities, the inputs a provision request takes (in form order, with type, default,\n" +
			"bounds and help), and the kinds of credential it accepts. -o json prints sdk.Info as JSON.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := o.openHost(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			for _, p := range h.Plugins() {
				if p.Name == args[0] {
					if o.output == "json" {
						enc := json.NewEncoder(cmd.OutOrStdout())
						enc.SetIndent("", "  ")
						return enc.Encode(p.Info)
					}
					return writeInspect(cmd.OutOrStdout(), p)
				}
			}
			for _, s := range h.Skipped() {
				if strings.HasSuffix(s.Path, plugin.BinaryPrefix+args[0]) {
					return fmt.Errorf("plugin %s was skipped: %s: %s", args[0], s.Reason, s.Detail)
				}
			}
			return fmt.Errorf("no provider plugin %q in %s (see 'kubeopera plugins list')", args[0], o.dir)
		},
	}
	cmd.Flags().StringVar(&o.dir, "plugin-dir", plugin.DirFromEnv(), "directory of plugin binaries (env KUBEOPERA_PLUGIN_DIR)")
	cmd.Flags().StringVarP(&o.output, "output", "o", "table", "output format: table or json")
	cmd.Flags().StringVar(&o.logLevel, "log-level", envOr("KUBEOPERA_LOG_LEVEL", "warn"), "log level of plugin output on stderr")
	cmd.Flags().DurationVar(&o.startTimeout, "start-timeout", 10*time.Second, "how long a plugin may take to start and complete its handshake")
	return cmd
}

func writeInspect(w io.Writer, p plugin.Plugin) error {
	i := p.Info
	caps := make([]string, len(i.Capabilities))
	for n, c := range i.Capabilities {
		caps[n] = string(c)
	}
	fmt.Fprintf(w, "%s (%s), cloud %s, version %s, protocol v%d, %s\n", i.Name, i.DisplayName, i.Cloud,
		i.PluginVersion, i.ProtocolVersion, i.Availability)
	fmt.Fprintf(w, "capabilities: %s\n", strings.Join(caps, ", "))
	fmt.Fprintf(w, "topologies: %s\nregion input: %s\n\ninputs:\n", strings.Join(i.Topologies, ", "), orDash(i.RegionInput))
	if err := writeFields(w, i.Schema); err != nil {
		return err
	}
	for _, k := range i.CredentialKinds {
		fmt.Fprintf(w, "\ncredential kind %s (%s): %s\n", k.Name, k.DisplayName, k.Help)
		if err := writeFields(w, k.Fields); err != nil {
			return err
		}
	}
	return nil
}

func writeFields(w io.Writer, fields []sdk.InputField) error {
	sorted := append([]sdk.InputField(nil), fields...)
	sort.SliceStable(sorted, func(a, b int) bool { return sorted[a].Order < sorted[b].Order })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tTYPE\tREQUIRED\tDEFAULT\tCONSTRAINTS\tHELP")
	for _, f := range sorted {
		fmt.Fprintf(tw, "  %s\t%s\t%t\t%s\t%s\t%s\n", f.Name, fieldType(f), f.Required && f.Default == "",
			orDash(f.Default), orDash(constraints(f)), f.Help)
	}
	return tw.Flush()
}

func fieldType(f sdk.InputField) string {
	t := string(f.Type)
	if f.Secret {
		t += " (secret)"
	}
	if f.Type == sdk.CredentialRef && len(f.CredentialKinds) > 0 {
		t += " (" + strings.Join(f.CredentialKinds, "|") + ")"
	}
	return t
}

func constraints(f sdk.InputField) string {
	var c []string
	if f.Min != nil {
		c = append(c, fmt.Sprintf("min %d", *f.Min))
	}
	if f.Max != nil {
		c = append(c, fmt.Sprintf("max %d", *f.Max))
	}
	if len(f.Allowed) > 0 {
		c = append(c, "one of "+strings.Join(f.Allowed, ","))
	}
	if f.Pattern != "" {
		c = append(c, "pattern "+f.Pattern)
	}
	return strings.Join(c, "; ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
