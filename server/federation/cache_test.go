package federation

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCacheSharesOneBuildAmongConcurrentViewers(t *testing.T) {
	c := NewCache(time.Hour)
	var builds atomic.Int32
	release := make(chan struct{})
	build := func(context.Context) (Overview, error) {
		builds.Add(1)
		<-release
		return Overview{Summary: Summary{Clusters: 7}}, nil
	}
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ov, err := c.Get(context.Background(), "", build)
			if err != nil || ov.Summary.Clusters != 7 {
				t.Errorf("Get = %+v, %v", ov.Summary, err)
			}
		}()
	}
	for builds.Load() == 0 { // the first viewer has started the build
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if _, err := c.Get(context.Background(), "", build); err != nil { // fresh: served from the cache
		t.Fatal(err)
	}
	if n := builds.Load(); n != 1 {
		t.Errorf("%d builds for 51 viewers within the TTL, want 1", n)
	}
}

func TestCacheBuildsAgainAfterTheTTLAndNeverKeepsAFailure(t *testing.T) {
	c := NewCache(time.Minute)
	clock := time.Now()
	c.now = func() time.Time { return clock }
	var builds atomic.Int32
	fail := true
	build := func(context.Context) (Overview, error) {
		builds.Add(1)
		if fail {
			return Overview{}, errors.New("store down")
		}
		return Overview{}, nil
	}
	if _, err := c.Get(context.Background(), "", build); err == nil {
		t.Fatal("failed build: no error")
	}
	fail = false
	for range 2 {
		if _, err := c.Get(context.Background(), "", build); err != nil {
			t.Fatal(err)
		}
	}
	clock = clock.Add(time.Minute)
	if _, err := c.Get(context.Background(), "", build); err != nil {
		t.Fatal(err)
	}
	if n := builds.Load(); n != 3 {
		t.Errorf("%d builds, want 3: the failure, the first success, one after the TTL", n)
	}
}

func TestCacheBuildOutlivesTheViewerWhoStartedIt(t *testing.T) {
	c := NewCache(time.Hour)
	started, release, buildErr := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	build := func(ctx context.Context) (Overview, error) {
		close(started)
		<-release
		buildErr <- ctx.Err()
		return Overview{Summary: Summary{Clusters: 1}}, nil
	}
	first, leave := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Get(first, "", build)
		errc <- err
	}()
	<-started
	leave()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("viewer who left: %v, want context.Canceled", err)
	}
	close(release)
	if err := <-buildErr; err != nil {
		t.Fatalf("the build saw %v when its first viewer left; it must run to its end for the others", err)
	}
	ov, err := c.Get(context.Background(), "", func(context.Context) (Overview, error) {
		return Overview{}, errors.New("built twice")
	})
	if err != nil || ov.Summary.Clusters != 1 {
		t.Errorf("next viewer: %+v, %v; want the overview the first build cached", ov.Summary, err)
	}
}

// An overview built from an older cluster list (another server deleted a
// cluster meanwhile) is neither served within its TTL nor joined while it
// is being built: the viewer gets one built for the current stamp.
func TestCacheNeverServesAnOverviewOfAnOlderClusterList(t *testing.T) {
	c := NewCache(time.Hour)
	build := func(n int) func(context.Context) (Overview, error) {
		return func(context.Context) (Overview, error) { return Overview{Summary: Summary{Clusters: n}}, nil }
	}
	if ov, err := c.Get(context.Background(), "2/t1", build(2)); err != nil || ov.Summary.Clusters != 2 {
		t.Fatalf("first build: %+v, %v", ov.Summary, err)
	}
	if ov, _ := c.Get(context.Background(), "2/t1", build(99)); ov.Summary.Clusters != 2 {
		t.Errorf("same stamp within the TTL: built again (%d clusters), want the cached 2", ov.Summary.Clusters)
	}
	if ov, _ := c.Get(context.Background(), "1/t2", build(1)); ov.Summary.Clusters != 1 {
		t.Errorf("new stamp: served %d clusters, want the rebuilt 1", ov.Summary.Clusters)
	}

	release := make(chan struct{})
	started := make(chan struct{})
	old := make(chan Overview, 1)
	go func() {
		ov, _ := c.Get(context.Background(), "5/t3", func(context.Context) (Overview, error) {
			close(started)
			<-release
			return Overview{Summary: Summary{Clusters: 5}}, nil
		})
		old <- ov
	}()
	<-started
	if ov, _ := c.Get(context.Background(), "4/t4", build(4)); ov.Summary.Clusters != 4 {
		t.Errorf("a build for an older stamp in flight was joined: %d clusters, want 4", ov.Summary.Clusters)
	}
	close(release)
	if ov := <-old; ov.Summary.Clusters != 5 {
		t.Errorf("the overtaken build's own viewer got %d, want 5", ov.Summary.Clusters)
	}
	if ov, _ := c.Get(context.Background(), "4/t4", build(99)); ov.Summary.Clusters != 4 {
		t.Errorf("the overtaken build replaced the newer one in the cache: %d clusters", ov.Summary.Clusters)
	}
}
