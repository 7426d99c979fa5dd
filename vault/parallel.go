package vault

import (
	"context"
	"runtime"
	"sync"
)

// inParallel calls fn(i) for every i in [0, n) on up to workers
// goroutines and returns once every call has returned. When ctx is done,
// no further i is started; the caller checks ctx.Err().
func inParallel(ctx context.Context, n, workers int, fn func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
}

// parallel calls fn on consecutive shares [from, to) of [0, n), one share
// per core (one call when n is small), and returns when all are done.
func parallel(n int, fn func(from, to int)) {
	const minShare = 4096 // below it a goroutine costs more than it saves
	workers := min(runtime.GOMAXPROCS(0), max(1, n/minShare))
	if workers <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		from, to := n*w/workers, n*(w+1)/workers
		if w == workers-1 {
			fn(from, to) // the last share on this goroutine
			break
		}
		wg.Go(func() { fn(from, to) })
	}
	wg.Wait()
}
