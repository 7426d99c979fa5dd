package resources

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
)

// URI scheme and template of an attachment: vault://file/<path>, the path
// as on disk (letter case kept) with each segment percent-escaped.
const (
	FileURIPrefix   = "vault://file/"
	FileURITemplate = "vault://file/{+path}"
)

// Attachments lists and reads the vault's attachments, images and PDFs
// (the vault's writer). Attachments lists those a client may read, in
// path order; ReadAttachment answers core.ErrNotFound for a path that is
// not one and core.ErrInvalidArgument for one over the size limit.
type Attachments interface {
	Attachments(ctx context.Context) ([]core.Attachment, error)
	ReadAttachment(rel string) (core.Attachment, []byte, error)
}

// attachmentMark starts a resources/list cursor into the attachments,
// which follow the notes: no note ID holds a NUL byte.
const attachmentMark = "\x00"

// FileURI is the resource URI of the attachment at rel.
func FileURI(rel string) string { return pathURI(FileURIPrefix, rel) }

// pathOf returns the attachment path a URI names ("" when it names none).
func pathOf(uri string) string { return uriPath(FileURIPrefix, uri) }

// hasAttachments reports whether any attachment is offered, so that the
// last page of notes announces a page of attachments only when there is
// one (a client would otherwise fetch an empty page). A failed listing
// counts as none, and is logged.
func (d Deps) hasAttachments(ctx context.Context) bool {
	if d.Attachments == nil {
		return false
	}
	all, err := d.Attachments.Attachments(ctx)
	if err != nil {
		d.logger().WarnContext(ctx, "attachment listing failed", "err", err)
		return false
	}
	return len(all) > 0
}

// listAttachments is a resources/list page of attachments after the path
// after ("" for the first).
func (d Deps) listAttachments(ctx context.Context, after string) ([]mcp.Resource, string, error) {
	all, err := d.Attachments.Attachments(ctx)
	if err != nil {
		return nil, "", err
	}
	start := 0
	for start < len(all) && all[start].Path <= after && after != "" {
		start++
	}
	end := min(start+d.pageSize(), len(all))
	out := make([]mcp.Resource, 0, end-start)
	for _, a := range all[start:end] {
		out = append(out, attachmentResource(a))
	}
	next := ""
	if end < len(all) {
		next = base64.StdEncoding.EncodeToString([]byte(attachmentMark + all[end-1].Path))
	}
	return out, next, nil
}

// attachmentResource describes an attachment: its file name as name and
// title, its path, MIME type, size and last modification.
func attachmentResource(a core.Attachment) mcp.Resource {
	size := a.Size
	r := mcp.Resource{
		URI:         FileURI(a.Path),
		Name:        path.Base(a.Path),
		Title:       path.Base(a.Path),
		Description: a.Path,
		MIMEType:    a.MIMEType,
		Size:        &size,
	}
	if !a.ModTime.IsZero() {
		r.Annotations = &mcp.Annotations{LastModified: a.ModTime.UTC().Format(time.RFC3339)}
	}
	return r
}

// ErrAttachmentNotFound answers a read of a URI that names no attachment.
var ErrAttachmentNotFound = errors.New("resources: no attachment has this URI")

// ReadAttachment returns the attachment a URI names, base64-encoded as a
// blob with its MIME type.
func (d Deps) ReadAttachment(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
	p := pathOf(uri)
	if p == "" || d.Attachments == nil {
		return nil, fmt.Errorf("%w: %q (want %s<path>)", ErrAttachmentNotFound, uri, FileURIPrefix)
	}
	a, raw, err := d.Attachments.ReadAttachment(p)
	switch {
	case errors.Is(err, core.ErrNotFound):
		return nil, fmt.Errorf("%w: %q", ErrAttachmentNotFound, p)
	case errors.Is(err, core.ErrInvalidArgument):
		return nil, err // over the size limit: the message says so
	case err != nil:
		d.logger().WarnContext(ctx, "attachment read failed", "path", p, "err", err)
		return nil, errors.New("resources: the vault failed to answer; try again later")
	}
	return []mcp.ResourceContents{mcp.BlobResourceContents{URI: FileURI(a.Path), MIMEType: a.MIMEType, Blob: base64.StdEncoding.EncodeToString(raw)}}, nil
}

// FileTemplate is the resource template of every attachment, with its
// handler.
func (d Deps) FileTemplate() server.ServerResourceTemplate {
	return server.ServerResourceTemplate{
		Template: mcp.NewResourceTemplate(FileURITemplate, "attachment",
			mcp.WithTemplateTitle("An image or PDF of the vault"),
			mcp.WithTemplateDescription("An attachment's bytes (base64 blob with its MIME type). path is its path in the vault as resources/list gives it, letter case included.")),
		Handler: func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return d.ReadAttachment(ctx, req.Params.URI)
		},
	}
}

// completeAttachments completes the file template's path: paths that start
// with value first, then those with a file name that starts with it, then
// those that contain it, each group in path order, all case-insensitive;
// at most maxCompletions.
func (d Deps) completeAttachments(ctx context.Context, value string) (*mcp.Completion, error) {
	all, err := d.Attachments.Attachments(ctx)
	if err != nil {
		return nil, err
	}
	v := strings.ToLower(strings.TrimSpace(value))
	var groups [3][]string
	for _, a := range all {
		lp := strings.ToLower(a.Path)
		switch {
		case strings.HasPrefix(lp, v):
			groups[0] = append(groups[0], a.Path)
		case strings.HasPrefix(path.Base(lp), v):
			groups[1] = append(groups[1], a.Path)
		case strings.Contains(lp, v):
			groups[2] = append(groups[2], a.Path)
		}
	}
	matches := append(append(groups[0], groups[1]...), groups[2]...)
	values := matches[:min(len(matches), maxCompletions)]
	return &mcp.Completion{Values: append([]string{}, values...), Total: len(matches), HasMore: len(matches) > len(values)}, nil
}
