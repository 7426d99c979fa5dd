package core

import "time"

// Attachment is a file of the vault that is not a note but is offered to
// clients as it is (an image, a PDF): its vault-relative path as on disk,
// its MIME type, size in bytes and last modification.
type Attachment struct {
	Path     string
	MIMEType string
	Size     int64
	ModTime  time.Time
}
