// Package procstat measures this process for benchmarks: the CPU time it
// has used, which a shared machine does not inflate as it does wall time,
// and the largest heap in use while a benchmark runs.
package procstat

import (
	"runtime"
	"sync"
	"time"
)

// SampleHeapPeak samples the heap in use every interval until the
// returned function is called, which samples it once more and returns the
// largest sample in bytes.
func SampleHeapPeak(every time.Duration) (stop func() uint64) {
	var peak uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(every)
		defer tick.Stop()
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapInuse)
			}
		}
	}()
	var once sync.Once
	return func() uint64 {
		once.Do(func() {
			close(done)
			<-sampled
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
		})
		return peak
	}
}
