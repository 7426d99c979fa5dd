//go:build !unix

package procstat

import "time"

// CPU is unknown here: 0.
func CPU() time.Duration { return 0 }
