// Package reliability holds the in-process reliability checks that need no
// binary: fuzz targets over the tools' argument decoding and handlers. The
// end-to-end reliability tests (crash safety, faults, storms, load, hostile
// input) drive the real binary and live in integration/e2e; the guarantees
// and the tests that prove them are listed in docs/RELIABILITY.md.
package reliability
