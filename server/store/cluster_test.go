package store

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func ptr[T any](v T) *T { return &v }

// readBack normalises a cluster read from a database for comparison.
func readBack(c Cluster) Cluster {
	c.CreatedAt, c.UpdatedAt = utc(c.CreatedAt), utc(c.UpdatedAt)
	return c
}

func TestClusterRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cluster Cluster
	}{
		{"nullable fields NULL", Cluster{Name: "bare", Source: SourceConnectedExisting}},
		{"every field set", Cluster{
			ID: "3f1c5a52-8d8e-4a5e-9b1e-2b9f1d0f7a11", Name: strings.Repeat("n", MaxClusterNameLength),
			Provider: "aws", Region: "eu-west-1", Source: SourceProvisionedEKS, IsHost: true,
			Status: "ready", Message: "all nodes ready", KubernetesVersion: "v1.31.2",
			NodeCount: 5, ReadyNodeCount: 4,
			ClusterUID: ptr("6a1f1d3e-uid"), CredentialID: ptr("cred-1"),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eachDB(t, func(t *testing.T, s *Store) {
				ctx := context.Background()
				clock := useFakeClock(s)
				in := tc.cluster
				if in.CredentialID != nil {
					storeCredential(t, s, *in.CredentialID)
				}
				if err := s.CreateCluster(ctx, &in); err != nil {
					t.Fatal(err)
				}
				if in.CreatedAt != clock.Now() || in.UpdatedAt != clock.Now() {
					t.Errorf("CreateCluster set CreatedAt %v, UpdatedAt %v; want both %v", in.CreatedAt, in.UpdatedAt, clock.Now())
				}
				got, err := s.GetCluster(ctx, in.ID)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(readBack(*got), in) {
					t.Errorf("GetCluster =\n %+v\nwant\n %+v", readBack(*got), in)
				}
				list, err := s.ListClusters(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(list) != 1 || !reflect.DeepEqual(readBack(list[0]), in) {
					t.Errorf("ListClusters = %+v, want just %+v", list, in)
				}
				if in.ClusterUID != nil {
					byUID, err := s.GetClusterByUID(ctx, *in.ClusterUID)
					if err != nil || byUID.ID != in.ID {
						t.Errorf("GetClusterByUID = %v, %v; want cluster %s", byUID, err, in.ID)
					}
				}
			})
		})
	}
}

func TestCreateClusterGeneratesAUUIDOnlyWhenIDIsEmpty(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		a := &Cluster{Name: "a", Source: SourceConnectedExisting}
		b := &Cluster{Name: "b", Source: SourceConnectedExisting}
		for _, c := range []*Cluster{a, b} {
			if err := s.CreateCluster(ctx, c); err != nil {
				t.Fatal(err)
			}
			if _, err := uuid.Parse(c.ID); err != nil {
				t.Errorf("generated ID %q is not a UUID: %v", c.ID, err)
			}
		}
		if a.ID == b.ID {
			t.Errorf("two clusters got the same ID %s", a.ID)
		}
		given := &Cluster{ID: "given-id", Name: "c", Source: SourceConnectedExisting}
		if err := s.CreateCluster(ctx, given); err != nil {
			t.Fatal(err)
		}
		if given.ID != "given-id" {
			t.Errorf("CreateCluster replaced the given ID with %q", given.ID)
		}
	})
}

func TestCreateClusterRejectsANameLongerThanTheColumn(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		c := &Cluster{Name: strings.Repeat("x", MaxClusterNameLength+1), Source: SourceConnectedExisting}
		err := s.CreateCluster(context.Background(), c)
		if err == nil || !strings.Contains(err.Error(), "longer than 63") {
			t.Errorf("CreateCluster = %v, want an error about the name's length", err)
		}
	})
}

func TestClusterConflicts(t *testing.T) {
	for _, tc := range []struct {
		name          string
		first, second Cluster
		field         string // "" when the second insert must succeed
		message       string
	}{
		{"same name", Cluster{Name: "prod"}, Cluster{Name: "prod"},
			"name", `a cluster named "prod" already exists`},
		{"second host", Cluster{Name: "a", IsHost: true}, Cluster{Name: "b", IsHost: true},
			"is_host", "a host cluster is already registered"},
		{"same cluster uid", Cluster{Name: "a", ClusterUID: ptr("u1")}, Cluster{Name: "b", ClusterUID: ptr("u1")},
			"cluster_uid", "(uid u1) is already registered"},
		{"two clusters without a uid", Cluster{Name: "a"}, Cluster{Name: "b"}, "", ""},
		{"two clusters that are not the host", Cluster{Name: "a"}, Cluster{Name: "b", IsHost: false}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eachDB(t, func(t *testing.T, s *Store) {
				ctx := context.Background()
				first, second := tc.first, tc.second
				first.Source, second.Source = SourceConnectedExisting, SourceConnectedExisting
				if err := s.CreateCluster(ctx, &first); err != nil {
					t.Fatal(err)
				}
				err := s.CreateCluster(ctx, &second)
				if tc.field == "" {
					if err != nil {
						t.Errorf("second CreateCluster: %v", err)
					}
					return
				}
				assertConflict(t, err, tc.field, tc.message)
			})
		})
	}
}

// assertConflict checks that err is a *ConflictError on field whose message
// contains message.
func assertConflict(t *testing.T, err error, field, message string) {
	t.Helper()
	var conflict *ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("error = %v (%T), want a *ConflictError", err, err)
	}
	if conflict.Field != field {
		t.Errorf("Field = %q, want %q", conflict.Field, field)
	}
	if !strings.Contains(conflict.Message, message) {
		t.Errorf("Message = %q, want it to contain %q", conflict.Message, message)
	}
}

func TestListClustersOrdersByCreationThenName(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		clock := useFakeClock(s)
		create := func(name string) {
			if err := s.CreateCluster(ctx, &Cluster{Name: name, Source: SourceConnectedExisting}); err != nil {
				t.Fatal(err)
			}
		}
		create("zeta")
		clock.Advance(time.Microsecond) // the finest step both databases keep
		create("beta")
		create("alpha")
		list, err := s.ListClusters(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := clusterNames(list); !reflect.DeepEqual(got, []string{"zeta", "alpha", "beta"}) {
			t.Errorf("ListClusters order = %v, want [zeta alpha beta]", got)
		}
	})
}

func clusterNames(cs []Cluster) []string {
	names := []string{}
	for _, c := range cs {
		names = append(names, c.Name)
	}
	return names
}

func TestHostCluster(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if _, err := s.HostCluster(ctx); !errors.Is(err, ErrNotFound) {
			t.Errorf("HostCluster with none registered = %v, want ErrNotFound", err)
		}
		for _, c := range []*Cluster{{Name: "other"}, {Name: "home", IsHost: true}} {
			c.Source = SourceSelfRegistered
			if err := s.CreateCluster(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		host, err := s.HostCluster(ctx)
		if err != nil || host.Name != "home" {
			t.Errorf("HostCluster = %v, %v; want the cluster named home", host, err)
		}
	})
}

func TestDeleteClusterRemovesOnlyThatCluster(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		gone, kept := &Cluster{Name: "gone"}, &Cluster{Name: "kept"}
		for _, c := range []*Cluster{gone, kept} {
			c.Source = SourceConnectedExisting
			if err := s.CreateCluster(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.DeleteCluster(ctx, gone.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetCluster(ctx, gone.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("GetCluster after delete = %v, want ErrNotFound", err)
		}
		if _, err := s.GetCluster(ctx, kept.ID); err != nil {
			t.Errorf("the other cluster: %v", err)
		}
	})
}

func TestClustersUsingCredentialFiltersByCredentialAndStatus(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		storeCredential(t, s, "x")
		storeCredential(t, s, "y")
		for _, c := range []Cluster{
			{Name: "x-provisioning", CredentialID: ptr("x"), Status: "provisioning"},
			{Name: "x-ready", CredentialID: ptr("x"), Status: "ready"},
			{Name: "x-deleting", CredentialID: ptr("x"), Status: "deleting"},
			{Name: "y-provisioning", CredentialID: ptr("y"), Status: "provisioning"},
			{Name: "none-provisioning", Status: "provisioning"},
		} {
			c.Source = SourceProvisionedEKS
			if err := s.CreateCluster(ctx, &c); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			name       string
			credential string
			statuses   []string
			want       []string
		}{
			{"some statuses", "x", []string{"provisioning", "deleting"}, []string{"x-provisioning", "x-deleting"}},
			{"one status", "y", []string{"provisioning"}, []string{"y-provisioning"}},
			{"no status matches", "x", []string{"failed"}, []string{}},
			{"any status", "x", nil, []string{"x-provisioning", "x-ready", "x-deleting"}},
			{"unused credential", "z", nil, []string{}},
		} {
			got, err := s.ClustersUsingCredential(ctx, tc.credential, tc.statuses)
			if err != nil {
				t.Fatal(err)
			}
			if names := clusterNames(got); !sameSet(names, tc.want) {
				t.Errorf("%s: ClustersUsingCredential(%q, %v) = %v, want %v", tc.name, tc.credential, tc.statuses, names, tc.want)
			}
		}
	})
}

func sameSet(a, b []string) bool {
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

func TestMissingRowsAreNotFound(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for _, tc := range []struct {
			name string
			call func() error
			want string
		}{
			{"GetCluster", func() error { _, err := s.GetCluster(ctx, "abc"); return err }, `cluster "abc": not found`},
			{"GetClusterByUID", func() error { _, err := s.GetClusterByUID(ctx, "u"); return err }, `cluster with uid "u": not found`},
			{"HostCluster", func() error { _, err := s.HostCluster(ctx); return err }, "host cluster: not found"},
			{"DeleteCluster", func() error { return s.DeleteCluster(ctx, "abc") }, `cluster "abc": not found`},
			{"UpdateInventory", func() error { return s.UpdateInventory(ctx, "abc", "v1", 1, 1) }, `cluster "abc": not found`},
			{"GetCredential", func() error { _, err := s.GetCredential(ctx, "c"); return err }, `credential "c": not found`},
			{"DeleteCredential", func() error { return s.DeleteCredential(ctx, "c") }, `credential "c": not found`},
			{"TokenByHash", func() error { _, err := s.TokenByHash(ctx, "h"); return err }, "API token: not found"},
			{"TouchToken", func() error { return s.TouchToken(ctx, "t", time.Now()) }, `API token "t": not found`},
		} {
			err := tc.call()
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("%s = %v, want an error wrapping ErrNotFound", tc.name, err)
				continue
			}
			if err.Error() != tc.want {
				t.Errorf("%s error = %q, want %q", tc.name, err, tc.want)
			}
		}
	})
}

// storeCredential stores a credential with the given ID for clusters to
// reference.
func storeCredential(t *testing.T, s *Store, id string) {
	t.Helper()
	if err := s.CreateCredential(context.Background(), &Credential{ID: id, Label: "label-" + id, Kind: "access_key",
		Ciphertext: []byte("sealed"), KeyID: "key-1"}); err != nil {
		t.Fatal(err)
	}
}
