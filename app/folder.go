package app

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Folder groups sources, one level deep. Its counts are those the navigation shows.
type Folder struct {
	ID      int64
	UserID  int64
	Name    string
	Sources int // sources in it
	Unread  int // unread, not hidden items of those sources
}

// MaxFolderName bounds a folder's name, in characters.
const MaxFolderName = 100

// FolderStore keeps folders. Each method is one transaction.
type FolderStore interface {
	// Folders returns the user's folders by name, with their counts; each unread count up to
	// unreadCap when it is above 0 (the navigation's, which shows "999+").
	Folders(ctx context.Context, userID int64, unreadCap int) ([]*Folder, error)
	// EnsureFolder returns the user's folder of that name (any case), making it when new.
	EnsureFolder(ctx context.Context, userID int64, name string) (*Folder, error)
	RenameFolder(ctx context.Context, userID, id int64, name string) (*Folder, error)
	// DeleteFolder deletes a folder; its sources stay, in no folder.
	DeleteFolder(ctx context.Context, userID, id int64) error
	// UnfiledUnread counts the unread items of the user's sources in no folder.
	UnfiledUnread(ctx context.Context, userID int64) (int, error)
}

// CleanFolderName checks a folder's name: trimmed, not empty, at most MaxFolderName characters.
func CleanFolderName(name string) (string, error) {
	n := strings.Join(strings.Fields(name), " ")
	if n == "" {
		return "", Errorf(EINVALID, "A folder needs a name.")
	}
	if !utf8.ValidString(n) {
		return "", Errorf(EINVALID, "A folder's name must be text (UTF-8).")
	}
	if utf8.RuneCountInString(n) > MaxFolderName {
		return "", Errorf(EINVALID, "A folder's name can be at most %d characters.", MaxFolderName)
	}
	return n, nil
}

func (s *Sources) folders() (FolderStore, error) { return s.Store, nil }

// Folders returns the user's folders with their source and unread counts, by name; each unread
// count up to unreadCap when it is above 0.
func (s *Sources) Folders(ctx context.Context, userID int64, unreadCap int) ([]*Folder, error) {
	fs, err := s.folders()
	if err != nil {
		return nil, err
	}
	return fs.Folders(ctx, userID, unreadCap)
}

// FolderLookupCap is the unread cap of a lookup of folders by name or id, which reads no unread
// count: each stops at the folder's first unread item rather than count them all.
const FolderLookupCap = 1

// Folder finds one of the user's folders by id or by name (any case), with its source count; its
// unread count is not counted (0 or 1).
func (s *Sources) Folder(ctx context.Context, userID int64, idOrName string) (*Folder, error) {
	all, err := s.Folders(ctx, userID, FolderLookupCap)
	if err != nil {
		return nil, err
	}
	key := strings.TrimSpace(idOrName)
	for _, f := range all {
		if strings.EqualFold(f.Name, key) {
			return f, nil
		}
	}
	for _, f := range all {
		if key == strconv.FormatInt(f.ID, 10) {
			return f, nil
		}
	}
	return nil, Errorf(ENOTFOUND, "No folder is called %q.", key)
}

// CreateFolder makes a folder (or returns the one of that name).
func (s *Sources) CreateFolder(ctx context.Context, userID int64, name string) (*Folder, error) {
	n, err := CleanFolderName(name)
	if err != nil {
		return nil, err
	}
	fs, err := s.folders()
	if err != nil {
		return nil, err
	}
	if err := s.checkFolderRoom(ctx, userID, n); err != nil {
		return nil, err
	}
	return fs.EnsureFolder(ctx, userID, n)
}

// RenameFolder renames a folder; a name another folder has is refused.
func (s *Sources) RenameFolder(ctx context.Context, userID, id int64, name string) (*Folder, error) {
	n, err := CleanFolderName(name)
	if err != nil {
		return nil, err
	}
	fs, err := s.folders()
	if err != nil {
		return nil, err
	}
	return fs.RenameFolder(ctx, userID, id, n)
}

// DeleteFolder deletes a folder; its sources stay, in no folder.
func (s *Sources) DeleteFolder(ctx context.Context, userID, id int64) error {
	fs, err := s.folders()
	if err != nil {
		return err
	}
	return fs.DeleteFolder(ctx, userID, id)
}

// UnfiledUnread counts the unread items of the user's sources in no folder.
func (s *Sources) UnfiledUnread(ctx context.Context, userID int64) (int, error) {
	fs, err := s.folders()
	if err != nil {
		return 0, err
	}
	return fs.UnfiledUnread(ctx, userID)
}

// Move puts a source in the named folder (made when new); "" takes it out of its folder.
func (s *Sources) Move(ctx context.Context, userID, id int64, folder string) (*Source, error) {
	return s.Update(ctx, userID, id, SourceUpdate{Folder: &folder})
}
