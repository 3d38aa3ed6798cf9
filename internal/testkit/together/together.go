// Package together runs calls at the same moment, for tests of races: a
// database rule or a lock must admit exactly one of many callers.
package together

import "sync"

// Run calls f(0) … f(n-1), each in its own goroutine, all released at
// once after every goroutine has started, and returns when all are done.
func Run(n int, f func(i int)) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			f(i)
		}()
	}
	close(start)
	wg.Wait()
}
