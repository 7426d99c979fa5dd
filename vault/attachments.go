package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/confine"
	"github.com/vaultgraph/vaultgraph/core"
)

// MaxAttachmentSize is the largest attachment offered (docs/LIMITS.md): a
// read answers it base64-encoded in one JSON-RPC message (a third larger),
// which the client holds in memory and may pass on to a model, whose
// providers take images of a few MiB. Larger files are neither listed nor read.
const MaxAttachmentSize = 10 << 20

// attachmentTypes are the files offered as attachments, by extension
// (lower case), with their MIME types: the images a client can show or a
// model can look at, and PDFs. Other attachment types (audio, video,
// office documents) are left out: no client does anything with them.
var attachmentTypes = map[string]string{
	".png":  "image/png",
	".jpg":  "image/jpeg",
	".jpeg": "image/jpeg",
	".gif":  "image/gif",
	".webp": "image/webp",
	".svg":  "image/svg+xml",
	".bmp":  "image/bmp",
	".pdf":  "application/pdf",
}

// AttachmentType returns the MIME type of the attachment at rel, "" when
// files like it are not offered.
func AttachmentType(rel string) string {
	return attachmentTypes[strings.ToLower(path.Ext(rel))]
}

// maxAttachmentWalk bounds the folders Attachments visits, so a vault
// with a huge tree of folders cannot make one resources/list page scan
// forever; the notes' own walk has no such limit, but runs once per sync.
const maxAttachmentWalk = 100_000

// Attachments lists the vault's attachments (see AttachmentType) up to
// MaxAttachmentSize, in path order. Like the notes' walk it skips
// dot-files, ignored paths and symbolic links; every folder is read
// through confine, so a folder swapped for a link lists nothing outside.
func (w *Writer) Attachments(ctx context.Context) ([]core.Attachment, error) {
	var out []core.Attachment
	dirs, visited := []string{""}, 0
	for len(dirs) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dir := dirs[len(dirs)-1]
		dirs = dirs[:len(dirs)-1]
		if visited++; visited > maxAttachmentWalk {
			w.m.log.Warn("vault: attachment listing stopped: too many folders", "folders", maxAttachmentWalk)
			break
		}
		entries, err := w.m.fs.ReadDir(dir)
		if err != nil {
			if dir == "" {
				return nil, fileError("list", dir, err)
			}
			continue // removed or swapped meanwhile: nothing of it is listed
		}
		for _, e := range entries {
			rel := joinPath(dir, e.Name())
			if w.m.ignore.skip(rel) || e.Type()&fs.ModeSymlink != 0 {
				continue
			}
			if e.IsDir() {
				dirs = append(dirs, rel)
				continue
			}
			mime := AttachmentType(rel)
			if mime == "" || !e.Type().IsRegular() {
				continue
			}
			info, err := e.Info()
			if err != nil || info.Size() > MaxAttachmentSize {
				continue
			}
			out = append(out, core.Attachment{Path: rel, MIMEType: mime, Size: info.Size(), ModTime: info.ModTime()})
		}
	}
	slices.SortFunc(out, func(a, b core.Attachment) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// ErrAttachmentTooLarge refuses a read of an attachment over
// MaxAttachmentSize; it is a core.ErrInvalidArgument.
var ErrAttachmentTooLarge = fmt.Errorf("vault: attachment over the size limit: %w", core.ErrInvalidArgument)

// ReadAttachment returns the attachment at rel (its path as on disk, as
// Attachments gives it) and its bytes, read through confine from one open
// handle. A path that is not an offered attachment, excluded, hidden or
// missing is core.ErrNotFound (wrapped); one over MaxAttachmentSize is
// ErrAttachmentTooLarge.
func (w *Writer) ReadAttachment(rel string) (core.Attachment, []byte, error) {
	clean, err := w.m.CleanPath(rel)
	if err != nil || clean == "" || AttachmentType(clean) == "" {
		return core.Attachment{}, nil, fmt.Errorf("vault: %q: %w: not an attachment of the vault", rel, core.ErrNotFound)
	}
	raw, info, err := w.m.fs.ReadFile(clean, MaxAttachmentSize)
	switch {
	case errors.Is(err, confine.ErrTooLarge):
		return core.Attachment{}, nil, fmt.Errorf("%w: %q has %d bytes, the limit is %d", ErrAttachmentTooLarge, clean, info.Size, MaxAttachmentSize)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, confine.ErrSymlink), errors.Is(err, confine.ErrNotRegular), errors.Is(err, confine.ErrNotDir):
		return core.Attachment{}, nil, fmt.Errorf("vault: %q: %w", clean, core.ErrNotFound)
	case err != nil:
		return core.Attachment{}, nil, fileError("read", clean, err)
	}
	return core.Attachment{Path: clean, MIMEType: AttachmentType(clean), Size: int64(len(raw)), ModTime: info.ModTime}, raw, nil
}
