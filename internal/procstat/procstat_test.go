package procstat

import (
	"testing"
	"time"
)

func TestSampleHeapPeakSeesAnAllocation(t *testing.T) {
	stop := SampleHeapPeak(time.Hour) // only the sample taken by stop
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	peak := stop()
	if buf[len(buf)-1] != byte(len(buf)-1) || peak < 64<<20 {
		t.Fatalf("peak %d bytes, want at least the 64 MiB allocated", peak)
	}
	if stop() != peak {
		t.Fatal("a second stop changed the answer")
	}
}

func TestCPUGrows(t *testing.T) {
	before := CPU()
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	if after := CPU(); after < before || x == 0 {
		t.Fatalf("CPU went from %s to %s", before, after)
	}
}
