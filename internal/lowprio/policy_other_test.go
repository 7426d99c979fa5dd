//go:build !linux

package lowprio

func currentPolicyIdle() bool { return false }
