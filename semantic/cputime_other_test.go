//go:build !unix

package semantic_test

import "time"

// processCPU is unknown here; benchmarks then report a CPU time of 0.
func processCPU() time.Duration { return 0 }
