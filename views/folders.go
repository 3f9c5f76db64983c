package views

import (
	"net/http"
	"strconv"

	"github.com/morningdeck/morningdeck/app"
)

// FolderJSON is a folder as the API (and the CLI's --json) shows it.
type FolderJSON struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	SourceCount int    `json:"sourceCount"`
	UnreadCount int    `json:"unreadCount"`
}

// NewFolderJSON makes the API form of a folder.
func NewFolderJSON(f *app.Folder) FolderJSON {
	return FolderJSON{ID: f.ID, Name: f.Name, SourceCount: f.Sources, UnreadCount: f.Unread}
}

func (s *Server) apiListFolders(w http.ResponseWriter, r *http.Request) {
	fs, err := s.opts.Sources.Folders(r.Context(), userID(r), 0)
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	out := make([]FolderJSON, 0, len(fs))
	for _, f := range fs {
		out = append(out, NewFolderJSON(f))
	}
	writeJSON(w, http.StatusOK, out)
}

type folderRequest struct {
	Name string `json:"name"`
}

func (s *Server) apiCreateFolder(w http.ResponseWriter, r *http.Request) {
	var req folderRequest
	if err := decode(w, r, &req); err != nil {
		s.apiError(w, r, err)
		return
	}
	f, err := s.opts.Sources.CreateFolder(r.Context(), userID(r), req.Name)
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, NewFolderJSON(f))
}

func (s *Server) apiRenameFolder(w http.ResponseWriter, r *http.Request) {
	id, ok := s.apiID(w, r)
	if !ok {
		return
	}
	var req folderRequest
	if err := decode(w, r, &req); err != nil {
		s.apiError(w, r, err)
		return
	}
	f, err := s.opts.Sources.RenameFolder(r.Context(), userID(r), id, req.Name)
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, NewFolderJSON(f))
}

func (s *Server) apiDeleteFolder(w http.ResponseWriter, r *http.Request) {
	id, ok := s.apiID(w, r)
	if !ok {
		return
	}
	if err := s.opts.Sources.DeleteFolder(r.Context(), userID(r), id); err != nil {
		s.apiError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// folders returns the user's folders with their counts (none when they cannot be read: the
// navigation and the pickers do without).
func (s *Server) folders(r *http.Request) []*app.Folder {
	if s.opts.Sources == nil {
		return nil
	}
	fs, err := s.opts.Sources.Folders(r.Context(), userID(r), app.NavUnreadCap)
	if err != nil {
		return nil
	}
	return fs
}

// iconHref is the URL of a source's stored favicon; "" when it has none.
func iconHref(src *app.Source) string {
	if !src.HasIcon {
		return ""
	}
	return "/icons/" + strconv.FormatInt(src.ID, 10)
}

// sourceIcon serves a source's stored favicon with caching headers; 404 when it has none (the
// page shows initials instead). The bytes were checked to be an image when they were stored.
func (s *Server) sourceIcon(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r)
	if !ok {
		s.notFound(w, r)
		return
	}
	icon, err := s.opts.Sources.Icon(r.Context(), userID(r), id)
	if err != nil {
		if app.ErrorCode(err) == app.ENOTFOUND {
			http.Error(w, "This source has no icon.", http.StatusNotFound)
			return
		}
		s.serverError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", icon.ContentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", "private, max-age=86400")
	h.Set("ETag", icon.ETag)
	if match := r.Header.Get("If-None-Match"); match != "" && match == icon.ETag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(icon.Data)))
	_, _ = w.Write(icon.Data)
}
