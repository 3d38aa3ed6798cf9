package main

import (
	"fmt"
	"net/http"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/internal/apiclient"
)

func newProvidersCommand() *cobra.Command {
	c := &conn{}
	cmd := &cobra.Command{Use: "providers", Short: "The provider plugins a KubeOpera server has loaded"}
	apiFlags(cmd, c)
	cmd.AddCommand(&cobra.Command{
		Use: "list", Short: "List provider plugins: availability, topologies, credential kinds", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := c.client()
			if err != nil {
				return err
			}
			resp, err := cl.ListProvidersWithResponse(cmd.Context())
			if err := expect(resp, err, http.StatusOK); err != nil {
				return err
			}
			items := resp.JSON200.Items
			return emit(cmd.OutOrStdout(), c.output, items, func(w *tabwriter.Writer, wide bool) {
				fmt.Fprintln(w, "NAME\tCLOUD\tAVAILABILITY\tVERSION\tTOPOLOGIES\tCREDENTIAL KINDS\tHEALTH")
				for _, p := range items {
					var kinds []string
					for _, k := range p.CredentialKinds {
						kinds = append(kinds, k.Name)
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Name, p.Cloud, p.Availability, p.Version,
						orDash(strings.Join(p.Topologies, ",")), orDash(strings.Join(kinds, ",")), p.Health)
				}
			})
		},
	})
	return cmd
}

func newCredentialsCommand() *cobra.Command {
	c := &conn{}
	cmd := &cobra.Command{Use: "credentials", Short: "Cloud credentials (admins): stored encrypted, never shown again"}
	apiFlags(cmd, c)
	var label, kind string
	var fields []string
	list := &cobra.Command{
		Use: "list", Short: "List credentials: label, kind, last 4 characters", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := c.client()
			if err != nil {
				return err
			}
			resp, err := cl.ListCredentialsWithResponse(cmd.Context())
			if err := expect(resp, err, http.StatusOK); err != nil {
				return err
			}
			items := resp.JSON200.Items
			return emit(cmd.OutOrStdout(), c.output, items, func(w *tabwriter.Writer, _ bool) { credentialTable(w, items...) })
		},
	}
	create := &cobra.Command{
		Use: "create", Short: "Store a credential: --kind (see 'providers list') and --field name=value for each of its fields", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := keyValues("--field", fields)
			if err != nil {
				return err
			}
			cl, err := c.client()
			if err != nil {
				return err
			}
			resp, err := cl.CreateCredentialWithResponse(cmd.Context(), apiclient.CredentialRequest{Label: label, Kind: kind, Fields: &f})
			if err := expect(resp, err, http.StatusCreated); err != nil {
				return err
			}
			return emit(cmd.OutOrStdout(), c.output, resp.JSON201, func(w *tabwriter.Writer, _ bool) { credentialTable(w, *resp.JSON201) })
		},
	}
	create.Flags().StringVar(&label, "label", "", "a name for the credential (required)")
	create.Flags().StringVar(&kind, "kind", "", "its kind, such as access_key (required)")
	create.Flags().StringArrayVar(&fields, "field", nil, "a field of the kind as name=value (repeat)")
	update := &cobra.Command{
		Use: "update ID", Short: "Change a credential's label or some of its fields", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := keyValues("--field", fields)
			if err != nil {
				return err
			}
			cl, err := c.client()
			if err != nil {
				return err
			}
			body := apiclient.CredentialUpdate{Label: optional(label)}
			if len(f) > 0 {
				body.Fields = &f
			}
			resp, err := cl.UpdateCredentialWithResponse(cmd.Context(), args[0], body)
			if err := expect(resp, err, http.StatusOK); err != nil {
				return err
			}
			return emit(cmd.OutOrStdout(), c.output, resp.JSON200, func(w *tabwriter.Writer, _ bool) { credentialTable(w, *resp.JSON200) })
		},
	}
	update.Flags().StringVar(&label, "label", "", "a new label")
	update.Flags().StringArrayVar(&fields, "field", nil, "a field to change as name=value (repeat)")
	del := &cobra.Command{
		Use: "delete ID", Short: "Delete a credential no provisioning cluster uses", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := c.client()
			if err != nil {
				return err
			}
			resp, err := cl.DeleteCredentialWithResponse(cmd.Context(), args[0])
			if err := expect(resp, err, http.StatusNoContent); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "deleted credential %s\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(list, create, update, del)
	return cmd
}

func credentialTable(w *tabwriter.Writer, items ...apiclient.Credential) {
	fmt.Fprintln(w, "ID\tLABEL\tKIND\tLAST4\tCREATED")
	for _, c := range items {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", c.Id, c.Label, c.Kind, c.Last4, age(c.CreatedAt))
	}
}

func keyValues(flag string, kvs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("%s %q: want name=value", flag, kv)}
		}
		out[k] = v
	}
	return out, nil
}
