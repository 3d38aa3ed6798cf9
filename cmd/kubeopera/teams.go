package main

import (
	"fmt"
	"net/http"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/internal/apiclient"
)

// newTeamsCommand manages teams and their members through the API: a
// team owns clusters and credentials, and a member's role there (viewer,
// operator, admin) decides what they may do with them.
func newTeamsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "teams", Short: "Manage teams, which own clusters and credentials, and their members' roles (platform admins)"}
	c := &conn{}
	apiFlags(cmd, c)
	cmd.AddCommand(
		&cobra.Command{Use: "list", Short: "List the teams you may see, with what each owns and your role there", Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error { return teamsList(cmd, c) }},
		&cobra.Command{Use: "create NAME", Short: "Create a team", Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error { return teamsCreate(cmd, c, args[0]) }},
		&cobra.Command{Use: "delete NAME", Short: "Delete a team that owns no clusters or credentials", Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error { return teamsDelete(cmd, c, args[0]) }},
		&cobra.Command{Use: "members TEAM", Short: "List a team's members and their roles", Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error { return teamsMembers(cmd, c, args[0]) }},
		newTeamsAddCommand(c),
		&cobra.Command{Use: "remove TEAM USER", Short: "Remove a user (username or ID) from a team", Args: cobra.ExactArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error { return teamsRemove(cmd, c, args[0], args[1]) }},
	)
	return cmd
}

func newTeamsAddCommand(c *conn) *cobra.Command {
	var role string
	cmd := &cobra.Command{Use: "add TEAM USER --role viewer|operator|admin", Short: "Give a user (username or ID) a role on a team, replacing the one they had",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return teamsAdd(cmd, c, args[0], args[1], role) }}
	cmd.Flags().StringVar(&role, "role", "viewer", "viewer (reads), operator (scale, upgrade, retry) or admin (connect, provision, teardown, disconnect, the team's credentials)")
	return cmd
}

func teamsList(cmd *cobra.Command, c *conn) error {
	cl, err := c.client()
	if err != nil {
		return err
	}
	resp, err := cl.ListTeamsWithResponse(cmd.Context())
	if err := expect(resp, err, http.StatusOK); err != nil {
		return err
	}
	items := resp.JSON200.Items
	return emit(cmd.OutOrStdout(), c.output, items, func(w *tabwriter.Writer, _ bool) {
		fmt.Fprintln(w, "NAME\tCLUSTERS\tCREDENTIALS\tMEMBERS\tYOUR ROLE")
		for _, t := range items {
			role := "-"
			if t.Role != nil {
				role = string(*t.Role)
			}
			fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%s\n", t.Name, t.Clusters, t.Credentials, t.Members, role)
		}
	})
}

func teamsCreate(cmd *cobra.Command, c *conn, name string) error {
	cl, err := c.client()
	if err != nil {
		return err
	}
	resp, err := cl.CreateTeamWithResponse(cmd.Context(), apiclient.TeamRequest{Name: name})
	if err := expect(resp, err, http.StatusCreated); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "created team %q: add members with 'kubeopera teams add %s USER --role operator'\n", name, name)
	return nil
}

func teamsDelete(cmd *cobra.Command, c *conn, name string) error {
	cl, err := c.client()
	if err != nil {
		return err
	}
	resp, err := cl.DeleteTeamWithResponse(cmd.Context(), name)
	if err := expect(resp, err, http.StatusNoContent); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "deleted team %q\n", name)
	return nil
}

func teamsMembers(cmd *cobra.Command, c *conn, team string) error {
	cl, err := c.client()
	if err != nil {
		return err
	}
	resp, err := cl.ListTeamMembersWithResponse(cmd.Context(), team)
	if err := expect(resp, err, http.StatusOK); err != nil {
		return err
	}
	items := resp.JSON200.Items
	return emit(cmd.OutOrStdout(), c.output, items, func(w *tabwriter.Writer, _ bool) {
		fmt.Fprintln(w, "USERNAME\tROLE\tFROM\tSINCE")
		for _, m := range items {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", m.Username, m.Role, m.Source, stamp(&m.CreatedAt))
		}
	})
}

func teamsAdd(cmd *cobra.Command, c *conn, team, user, role string) error {
	cl, err := c.client()
	if err != nil {
		return err
	}
	u, err := findUser(cmd.Context(), apiUsers{cl}, user)
	if err != nil {
		return err
	}
	resp, err := cl.SetTeamMemberWithResponse(cmd.Context(), team, u.Id, apiclient.MemberRequest{Role: apiclient.MemberRequestRole(role)})
	if err := expect(resp, err, http.StatusOK); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s is now %s of team %q (from their next request)\n", u.Username, role, team)
	return nil
}

func teamsRemove(cmd *cobra.Command, c *conn, team, user string) error {
	cl, err := c.client()
	if err != nil {
		return err
	}
	u, err := findUser(cmd.Context(), apiUsers{cl}, user)
	if err != nil {
		return err
	}
	resp, err := cl.RemoveTeamMemberWithResponse(cmd.Context(), team, u.Id)
	if err := expect(resp, err, http.StatusNoContent); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "removed %s from team %q\n", u.Username, team)
	return nil
}
