package kb

// SetMetaWriteHook sets metaWriteHook for a test and returns a function
// that clears it.
func SetMetaWriteHook(f func(attempt int)) func() {
	metaWriteHook = f
	return func() { metaWriteHook = nil }
}
