package testwait_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/vaultgraph/vaultgraph/internal/testwait"
)

func TestRecvReturnsWhatComes(t *testing.T) {
	ch := make(chan int, 1)
	ch <- 7
	if got := testwait.Recv(t, ch, "seven"); got != 7 {
		t.Fatalf("got %d", got)
	}
	close(ch)
	if got := testwait.Recv(t, ch, "the close"); got != 0 {
		t.Fatalf("a closed channel gave %d", got)
	}
	var wg sync.WaitGroup
	wg.Go(func() {})
	testwait.Wait(t, &wg, "nothing")
}

func TestStacksNameThisTest(t *testing.T) {
	if s := testwait.Stacks(); !strings.Contains(s, "TestStacksNameThisTest") {
		t.Fatalf("no stack of this test in:\n%.2000s", s)
	}
}
