package memstore

// RandomText lets the package's external tests draw note texts from the
// vocabulary its internal keyword tests use.
var RandomText = randomText
