//go:build !amd64

package flat

// dot is the dot product of two vectors of equal length.
func dot(a, b []float32) float32 { return dotGo(a, b) }
