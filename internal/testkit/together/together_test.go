package together

import (
	"sync/atomic"
	"testing"
)

func TestRunCallsEachIndexOnceAndWaits(t *testing.T) {
	var calls [50]atomic.Int32
	Run(len(calls), func(i int) { calls[i].Add(1) })
	for i := range calls {
		if n := calls[i].Load(); n != 1 {
			t.Errorf("f(%d) ran %d times, want 1 (and before Run returned)", i, n)
		}
	}
}
