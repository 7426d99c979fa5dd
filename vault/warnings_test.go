package vault

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWarningsDrainInOrderOnceAndClear(t *testing.T) {
	w := NewWarnings(0)
	w.Add("Broken link: [[a]]", "Duplicate tag ignored: ml", "Broken link: [[a]]")
	assert.Equal(t, 2, w.Len())
	assert.Equal(t, []string{"Broken link: [[a]]", "Duplicate tag ignored: ml"}, w.Drain())
	assert.Nil(t, w.Drain())
	w.Add("Broken link: [[a]]")
	assert.Equal(t, []string{"Broken link: [[a]]"}, w.Drain(), "after a drain the same warning is news again")
}

func TestWarningsAreCapped(t *testing.T) {
	w := NewWarnings(3)
	for i := range 10 {
		w.Add(fmt.Sprintf("w%d", i))
	}
	assert.Equal(t, []string{"w0", "w1", "w2", "7 more warnings not shown"}, w.Drain())
	assert.Zero(t, w.Len())
}

func TestWarningsAreSafeForConcurrentUse(t *testing.T) {
	w := NewWarnings(10000)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				w.Add(fmt.Sprintf("g%d-%d", g, i))
				if i%10 == 0 {
					w.Drain()
				}
			}
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, w.Len(), 800)
}
