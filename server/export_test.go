package server

// SetOnWait makes f call fn as each call starts waiting for the sync, so
// that a test can act once a request is known to wait.
func (f *FirstSync) SetOnWait(fn func()) { f.onWait = fn }
