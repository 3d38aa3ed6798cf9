package livecache

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestConcurrentCallersShareOneFetch(t *testing.T) {
	c := New[int](time.Hour, time.Minute)
	var calls atomic.Int32
	release, started := make(chan struct{}), make(chan struct{})
	fetch := func(context.Context) (int, error) {
		if calls.Add(1) == 1 {
			close(started)
		}
		<-release
		return 42, nil
	}
	var wg sync.WaitGroup
	results := make([]int, 20)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], _ = c.Get(context.Background(), "cluster-a", fetch)
		}()
	}
	<-started
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("%d fetches for 20 concurrent callers, want 1", n)
	}
	for i, r := range results {
		if r != 42 {
			t.Errorf("caller %d got %d", i, r)
		}
	}
	if v, _ := c.Get(context.Background(), "cluster-b", func(context.Context) (int, error) { return 7, nil }); v != 7 {
		t.Errorf("another key got %d, want its own value", v)
	}
}

func TestValuesExpireAndErrorsAreNotKept(t *testing.T) {
	c := New[int](3*time.Second, time.Minute)
	clock := time.Unix(1000, 0)
	c.now = func() time.Time { return clock }
	n := 0
	fetch := func(context.Context) (int, error) { n++; return n, nil }
	ctx := context.Background()
	if v, _ := c.Get(ctx, "k", fetch); v != 1 {
		t.Fatalf("first = %d", v)
	}
	clock = clock.Add(2 * time.Second)
	if v, _ := c.Get(ctx, "k", fetch); v != 1 {
		t.Errorf("within the TTL = %d, want the kept 1", v)
	}
	clock = clock.Add(2 * time.Second)
	if v, _ := c.Get(ctx, "k", fetch); v != 2 {
		t.Errorf("after the TTL = %d, want a new fetch", v)
	}
	boom := errors.New("unreachable")
	if _, err := c.Get(ctx, "e", func(context.Context) (int, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Errorf("error = %v", err)
	}
	if v, err := c.Get(ctx, "e", func(context.Context) (int, error) { return 5, nil }); err != nil || v != 5 {
		t.Errorf("after an error: %d %v, want a new fetch", v, err)
	}
}

// A caller that gives up does not cancel the fetch others wait for.
func TestCallerCancelDoesNotCancelTheSharedFetch(t *testing.T) {
	c := New[string](time.Hour, time.Minute)
	release := make(chan struct{})
	started := make(chan struct{})
	fetch := func(ctx context.Context) (string, error) {
		close(started)
		select {
		case <-release:
			return "ok", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := c.Get(ctx, "k", fetch); errc <- err }()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled caller got %v", err)
	}
	done := make(chan string, 1)
	go func() { v, _ := c.Get(context.Background(), "k", fetch); done <- v }()
	close(release)
	if v := <-done; v != "ok" {
		t.Errorf("waiting caller got %q, want the shared fetch's value", v)
	}
}
