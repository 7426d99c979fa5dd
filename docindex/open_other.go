//go:build !unix

package docindex

// openNonblock: no FIFOs to guard against here.
const openNonblock = 0
