//go:build !linux

package kv

import bolt "go.etcd.io/bbolt"

// releasePages does nothing here: only Linux gets the advice (see
// pages_linux.go); elsewhere the kernel trims the mapping's pages itself.
func releasePages(*bolt.Tx) {}
