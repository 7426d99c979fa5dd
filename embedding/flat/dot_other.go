//go:build !amd64

package flat

// dot is the dot product of two vectors of equal length.
func dot(a, b []float32) float32 { return dotGo(a, b) }

// dotInt8 is the int8 dot product of two rows of equal length.
func dotInt8(a, b []int8) int32 { return dotInt8Go(a, b) }
