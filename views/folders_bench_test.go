package views_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
	"github.com/morningdeck/morningdeck/views"
)

// BenchmarkFolderPages measures the pages that show unread counts per folder and per source
// with 10,000 sources in 50 folders and 100,000 items (half of them unread):
//
//	go test ./views -run '^$' -bench FolderPages -benchtime 50x
func BenchmarkFolderPages(b *testing.B) {
	db := sqlitetest.New(b)
	seedFolders(b, db, 10_000, 50, 100_000)
	q := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db, Capacity: 1000})
	srv := httptest.NewServer(views.New(views.Options{Sources: &app.Sources{Store: db, Queue: q}, Reading: &app.Reading{Store: db}}))
	defer srv.Close()
	var folderID int64
	if err := db.Read.QueryRow(`select id from folders order by id limit 1`).Scan(&folderID); err != nil {
		b.Fatal(err)
	}
	for _, p := range []struct{ name, path string }{
		{"items (sidebar folders with unread counts)", "/items"},
		{"items of one folder", fmt.Sprintf("/items?folder=%d", folderID)},
		{"sources page (unread per source)", "/sources"},
		{"api folders", "/api/folders"},
		{"item page with next/previous", fmt.Sprintf("/items/50000?folder=%d&show=all&pos=3", folderID)},
	} {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				res, err := http.Get(srv.URL + p.path)
				if err != nil {
					b.Fatal(err)
				}
				_ = res.Body.Close()
				if res.StatusCode != 200 {
					b.Fatalf("%s: %d", p.path, res.StatusCode)
				}
			}
		})
	}
}

// seedFolders writes sources (spread over folders) and items, every second one unread, with SQL.
func seedFolders(b *testing.B, db *sqlite.DB, sources, folders, items int) {
	b.Helper()
	stmts := []string{
		fmt.Sprintf(`with recursive n(i) as (select 1 union all select i + 1 from n where i < %d)
			insert into folders (user_id, name) select 1, 'Folder ' || i from n`, folders),
		fmt.Sprintf(`with recursive n(i) as (select 1 union all select i + 1 from n where i < %d)
			insert into sources (user_id, type, url, name, folder_id) select 1, 'rss', 'https://s' || i || '.example/feed', 'Source ' || i, 1 + i %% %d from n`, sources, folders),
		fmt.Sprintf(`with recursive n(i) as (select 1 union all select i + 1 from n where i < %d)
			insert into items (source_id, user_id, guid, title, status, published_at, read_at)
			select 1 + i %% %d, 1, 'g' || i, 'Item ' || i, 'DONE', strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ', '2026-01-01', '+' || i || ' minutes'),
				case when i %% 2 = 0 then '2026-06-01T00:00:00.000Z' end from n`, items, sources),
		`analyze`,
	}
	for _, s := range stmts {
		if _, err := db.Write.Exec(s); err != nil {
			b.Fatalf("%v\n%s", err, s)
		}
	}
}
