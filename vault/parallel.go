package vault

import (
	"context"
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
