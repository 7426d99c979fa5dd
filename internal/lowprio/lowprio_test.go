package lowprio

import (
	"context"
	"runtime"
	"testing"
)

func TestWithMarksTheContext(t *testing.T) {
	if Background(context.Background()) {
		t.Fatal("a plain context is marked")
	}
	if !Background(With(context.Background())) {
		t.Fatal("With did not mark the context")
	}
}

// The lowered thread is the goroutine's alone, and the process's other
// threads keep their priority.
func TestThreadLowersOnlyItsThread(t *testing.T) {
	done := make(chan bool)
	go func() { done <- Thread() && (runtime.GOOS != "linux" || currentPolicyIdle()) }()
	lowered := <-done
	if runtime.GOOS == "linux" && !lowered {
		t.Fatal("Thread did not put the thread in SCHED_IDLE on Linux")
	}
	if runtime.GOOS == "linux" && currentPolicyIdle() {
		t.Fatal("the test's own thread was lowered")
	}
}
