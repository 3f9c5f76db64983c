package postgres

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app/htmltext"
)

// Moving a SQLite database into PostgreSQL (issue 29, item 5): CopyFromSQLite copies every
// table of Morning Deck's SQLite file (read through src, a connection pool on it) into this
// database, which must be empty (fresh from Open) or hold a copy begun earlier: the copy is
// resumable, a batch of rows and the note of how far it got committing together. Ids are kept,
// so links, jobs and references stay valid, and the identities are set past them at the end.
// VerifyFromSQLite then compares each table's rows on both sides (count and checksum).
//
// The tables and columns are SQLite's as of its migration 0028 (this package's 0002–0007 hold
// the same). A column added to SQLite needs its line here and its column there; the migrate
// test fails until both are made.

// colKind says how a SQLite value becomes a PostgreSQL one.
type colKind int

const (
	kPlain   colKind = iota // integers, reals, text: as they are (a text stored as a blob, as text)
	kBytes                  // a blob → bytea
	kTime                   // SQLite's text time → timestamptz ("" and null: null)
	kBool                   // 0/1 → boolean
	kSummary                // items.summary: SQLite's char(30) stands for the item's text
)

type copyCol struct {
	name string
	kind colKind
}

// copyTable is one table to copy: its columns, the columns of its key (the copy's order and
// resume point), and what an existing row does (nothing, or take the copied values: the
// default user and the installation's secrets, which Open made).
type copyTable struct {
	name   string
	key    []string
	cols   []copyCol
	upsert bool
}

func cols(spec string) []copyCol {
	var out []copyCol
	for _, f := range strings.Fields(spec) {
		c := copyCol{name: f}
		switch {
		case strings.HasSuffix(f, ":t"):
			c = copyCol{strings.TrimSuffix(f, ":t"), kTime}
		case strings.HasSuffix(f, ":b"):
			c = copyCol{strings.TrimSuffix(f, ":b"), kBool}
		case strings.HasSuffix(f, ":s"):
			c = copyCol{strings.TrimSuffix(f, ":s"), kSummary}
		case strings.HasSuffix(f, ":x"):
			c = copyCol{strings.TrimSuffix(f, ":x"), kBytes}
		}
		out = append(out, c)
	}
	return out
}

// copyTables, parents before children; items before their tombstones (a tombstoned GUID's
// insert is dropped by the trigger).
var copyTables = []copyTable{
	{name: "users", key: []string{"id"}, upsert: true, cols: cols(`id name created_at:t interests topics enricher credits daily_credits
		credits_refilled_at:t timezone llm_base_url llm_model llm_api_key smtp_host smtp_port smtp_username smtp_password smtp_from smtp_tls
		password_hash is_admin:b mark_read_on_scroll:b density webhook_url webhook_secret wallabag_url wallabag_client_id
		wallabag_client_secret wallabag_username wallabag_password`)},
	{name: "app_secrets", key: []string{"name"}, upsert: true, cols: cols(`name value:x`)},
	{name: "sessions", key: []string{"token_hash"}, cols: cols(`token_hash user_id created_at:t expires_at:t`)},
	{name: "api_tokens", key: []string{"id"}, cols: cols(`id user_id name token_hash created_at:t last_used_at:t`)},
	{name: "folders", key: []string{"id"}, cols: cols(`id user_id name created_at:t`)},
	{name: "sources", key: []string{"id"}, cols: cols(`id user_id type url name status fetch_status refresh_interval_minutes auto_interval:b
		last_fetched_at:t queued_at:t fetch_started_at:t next_fetch_at:t last_error error_count etag last_modified created_at:t topics folder_id fetch_failure`)},
	{name: "source_icons", key: []string{"source_id"}, cols: cols(`source_id content_type data:x etag error fetched_at:t`)},
	{name: "imap_sources", key: []string{"source_id"}, cols: cols(`source_id host port security username folder sender mark_read:b first_import`)},
	{name: "imap_secrets", key: []string{"source_id"}, cols: cols(`source_id sealed:x`)},
	{name: "items", key: []string{"id"}, cols: cols(`id source_id user_id guid title link author published_at:t raw_content clean_content extra
		status created_at:t text_content summary:s tags topics score score_reasoning enriched_by attempts last_error status_changed_at:t read_at:t
		starred:b hidden:b prompt_tokens completion_tokens usual_topics base_score base_reasoning`)},
	{name: "item_tombstones", key: []string{"source_id", "guid"}, cols: cols(`source_id guid pruned_at:t seen_at:t`)},
	{name: "filters", key: []string{"id"}, cols: cols(`id user_id source_id name field match pattern action score_delta enabled:b created_at:t`)},
	{name: "briefings", key: []string{"id"}, cols: cols(`id user_id name focus source_ids frequency day_of_week time_of_day timezone item_limit
		min_score email_enabled:b recipients status last_executed_at:t status_changed_at:t last_error created_at:t topic email_empty:b mark_read:b folder_id`)},
	{name: "reports", key: []string{"id"}, cols: cols(`id briefing_id user_id generated_at:t period_start:t period_end:t overview item_count preview:b`)},
	{name: "report_items", key: []string{"report_id", "rank"}, cols: cols(`report_id rank item_id source_name title link summary score score_reasoning also_covered_by`)},
	{name: "deliveries", key: []string{"id"}, cols: cols(`id report_id recipient status attempts last_error sent_at:t created_at:t`)},
	{name: "feedback_events", key: []string{"id"}, cols: cols(`id user_id item_id signal features created_at:t`)},
	{name: "reading_models", key: []string{"user_id"}, cols: cols(`user_id model version rescored updated_at:t`)},
	{name: "queue_state", key: []string{"queue"}, cols: cols(`queue paused:b`)},
	{name: "queue_dead", key: []string{"id"}, cols: cols(`id queue kind body:x attempts error failed_at:t`)},
	{name: "queue_done", key: []string{"queue", "minute"}, cols: cols(`queue minute ok failed`)},
	{name: "goqite", key: []string{"id"}, cols: cols(`id created:t updated:t queue body:x timeout:t received priority`)},
}

// CopyOptions steer CopyFromSQLite.
type CopyOptions struct {
	Batch int // rows per transaction (default 1,000)
	// Progress, when set, is told after each batch: the table, the rows it copied so far.
	Progress func(table string, rows int)
	// stopAfter ends the copy after that many batches (tests of resuming).
	stopAfter int
}

// errStopped is the copy stopped by CopyOptions.stopAfter.
var errStopped = errors.New("postgres: copy stopped")

// CopyResult is what a copy did.
type CopyResult struct {
	Rows    map[string]int // rows copied, by table (this run)
	Resumed bool           // the copy continued one begun earlier
}

// CopyFromSQLite copies the SQLite database src into db (see above). It refuses a database
// that holds data of its own.
func (db *DB) CopyFromSQLite(ctx context.Context, src *sql.DB, opts CopyOptions) (CopyResult, error) {
	res := CopyResult{Rows: map[string]int{}}
	opts.Batch = max(opts.Batch, 0)
	if opts.Batch == 0 {
		opts.Batch = 1000
	}
	if _, err := db.SQL.ExecContext(ctx, `create table if not exists migrate_progress (
		tbl text primary key, last_key text not null default '', done boolean not null default false, rows bigint not null default 0)`); err != nil {
		return res, fmt.Errorf("postgres: copy: %w", err)
	}
	var begun, done int
	if err := db.SQL.QueryRowContext(ctx, `select count(*), count(*) filter (where done) from migrate_progress`).Scan(&begun, &done); err != nil {
		return res, fmt.Errorf("postgres: copy: %w", err)
	}
	res.Resumed = begun > 0
	if begun == 0 {
		var users, sources, briefings int
		if err := db.SQL.QueryRowContext(ctx, `select (select count(*) from users where id != 1 or password_hash != ''), (select count(*) from sources), (select count(*) from briefings)`).Scan(&users, &sources, &briefings); err != nil {
			return res, fmt.Errorf("postgres: copy: %w", err)
		}
		if users+sources+briefings > 0 {
			return res, errors.New("the PostgreSQL database already holds data (accounts, sources or briefings): copy into a new, empty database")
		}
	} else if done == len(copyTables) {
		return res, errors.New("the PostgreSQL database holds a finished copy already: nothing to do (verify it with --verify)")
	}
	batches := 0
	for _, t := range copyTables {
		var last string
		var isDone bool
		err := db.SQL.QueryRowContext(ctx, `select last_key, done from migrate_progress where tbl = $1`, t.name).Scan(&last, &isDone)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return res, fmt.Errorf("postgres: copy %s: %w", t.name, err)
		}
		if isDone {
			continue
		}
		var after []any
		if last != "" {
			if err := json.Unmarshal([]byte(last), &after); err != nil {
				return res, fmt.Errorf("postgres: copy %s: resume point %q: %w", t.name, last, err)
			}
		}
		for {
			rows, err := readBatch(ctx, src, t, after, opts.Batch)
			if err != nil {
				return res, fmt.Errorf("postgres: copy %s: read SQLite: %w", t.name, err)
			}
			finished := len(rows) < opts.Batch
			if len(rows) > 0 {
				after = keyOf(t, rows[len(rows)-1])
			}
			if err := db.writeBatch(ctx, t, rows, after, finished); err != nil {
				return res, fmt.Errorf("postgres: copy %s: %w", t.name, err)
			}
			res.Rows[t.name] += len(rows)
			if opts.Progress != nil {
				opts.Progress(t.name, res.Rows[t.name])
			}
			if finished {
				break
			}
			if batches++; opts.stopAfter > 0 && batches >= opts.stopAfter {
				return res, errStopped
			}
		}
	}
	// The identities go on after the copied ids.
	for _, t := range copyTables {
		if len(t.key) != 1 || t.key[0] != "id" || t.name == "queue_dead" || t.name == "goqite" {
			continue
		}
		if _, err := db.SQL.ExecContext(ctx, `select setval(pg_get_serial_sequence($1, 'id'), greatest((select max(id) from `+t.name+`), 1))`, t.name); err != nil {
			return res, fmt.Errorf("postgres: copy: identity of %s: %w", t.name, err)
		}
	}
	return res, nil
}

// readBatch reads up to n rows of t from SQLite after the key after (none: from the first),
// converted to what PostgreSQL stores.
func readBatch(ctx context.Context, src *sql.DB, t copyTable, after []any, n int) ([][]any, error) {
	names := make([]string, len(t.cols))
	summary, text, clean := -1, -1, -1
	for i, c := range t.cols {
		names[i] = c.name
		if c.kind == kSummary {
			summary = i
		}
		if c.name == "text_content" {
			text = i
		}
		if c.name == "clean_content" {
			clean = i
		}
	}
	q := `select ` + strings.Join(names, ", ") + ` from ` + t.name
	var args []any
	if after != nil {
		ph := strings.TrimSuffix(strings.Repeat("?, ", len(t.key)), ", ")
		q += ` where (` + strings.Join(t.key, ", ") + `) > (` + ph + `)`
		args = after
	}
	q += ` order by ` + strings.Join(t.key, ", ") + ` limit ` + strconv.Itoa(n)
	rows, err := src.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(t.cols))
		ptrs := make([]any, len(t.cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, c := range t.cols {
			v, err := convert(c, vals[i])
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", t.name, c.name, err)
			}
			vals[i] = v
		}
		if summary >= 0 && text >= 0 && clean >= 0 && vals[summary] == summaryIsText {
			// The text: text_content, or the HTML's text when it is empty (both engines' 0031/0011).
			t, _ := vals[text].(string)
			h, _ := vals[clean].(string)
			vals[summary] = htmltext.Of(t, h)
		}
		out = append(out, vals)
	}
	return out, rows.Err()
}

// summaryIsText is SQLite's stored summary of an item whose summary is its whole text
// (package sqlite's summaryIsText, its migration 0028).
const summaryIsText = "\x1e"

// convert turns a SQLite value into the PostgreSQL column's.
func convert(c copyCol, v any) (any, error) {
	switch b, isBytes := v.([]byte); {
	case c.kind == kBytes && !isBytes && v != nil:
		v = []byte(fmt.Sprint(v))
	case c.kind != kBytes && isBytes:
		v = string(b)
	}
	switch c.kind {
	case kTime:
		s, ok := v.(string)
		if v == nil || ok && s == "" {
			return nil, nil
		}
		if !ok {
			return nil, fmt.Errorf("a time that is not text: %v", v)
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			if t, err = time.Parse("2006-01-02 15:04:05", s); err != nil {
				return nil, fmt.Errorf("time %q: %w", s, err)
			}
		}
		return t.UTC().Truncate(time.Millisecond), nil
	case kBool:
		switch x := v.(type) {
		case int64:
			return x != 0, nil
		case bool:
			return x, nil
		case nil:
			return nil, nil
		}
		return nil, fmt.Errorf("a flag that is not 0 or 1: %v", v)
	}
	return v, nil
}

// keyOf is a row's key values, as the resume point.
func keyOf(t copyTable, row []any) []any {
	var k []any
	for _, name := range t.key {
		for i, c := range t.cols {
			if c.name == name {
				k = append(k, row[i])
			}
		}
	}
	return k
}

// writeBatch inserts rows into t and notes the resume point, in one transaction.
func (db *DB) writeBatch(ctx context.Context, t copyTable, rows [][]any, after []any, finished bool) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if len(rows) > 0 {
			names := make([]string, len(t.cols))
			for i, c := range t.cols {
				names[i] = c.name
			}
			var q strings.Builder
			q.WriteString(`insert into ` + t.name + ` (` + strings.Join(names, ", ") + `) values `)
			args := make([]any, 0, len(rows)*len(t.cols))
			for r, row := range rows {
				if r > 0 {
					q.WriteString(", ")
				}
				q.WriteByte('(')
				for i := range row {
					if i > 0 {
						q.WriteString(", ")
					}
					args = append(args, row[i])
					q.WriteString("$" + strconv.Itoa(len(args)))
				}
				q.WriteByte(')')
			}
			q.WriteString(` on conflict (` + strings.Join(t.key, ", ") + `) do `)
			if t.upsert {
				var sets []string
				for _, n := range names {
					sets = append(sets, n+" = excluded."+n)
				}
				q.WriteString(`update set ` + strings.Join(sets, ", "))
			} else {
				q.WriteString(`nothing`)
			}
			if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
				return err
			}
		}
		key, _ := json.Marshal(after)
		if after == nil {
			key = nil
		}
		_, err := tx.ExecContext(ctx, `insert into migrate_progress (tbl, last_key, done, rows) values ($1, $2, $3, $4)
			on conflict (tbl) do update set last_key = excluded.last_key, done = excluded.done, rows = migrate_progress.rows + excluded.rows`,
			t.name, string(key), finished, len(rows))
		return err
	})
}

// TableCheck is one table's rows on both sides: count and checksum.
type TableCheck struct {
	Table              string
	SQLiteRows, PGRows int
	SQLiteSum, PGSum   uint64
	Equal              bool
}

// VerifyFromSQLite compares every copied table's rows in SQLite (converted as the copy converts
// them) and in this database: their count and a checksum of their values in key order.
func (db *DB) VerifyFromSQLite(ctx context.Context, src *sql.DB) ([]TableCheck, error) {
	var out []TableCheck
	for _, t := range copyTables {
		c := TableCheck{Table: t.name}
		var err error
		if c.SQLiteRows, c.SQLiteSum, err = sqliteSum(ctx, src, t); err != nil {
			return out, fmt.Errorf("postgres: verify %s in SQLite: %w", t.name, err)
		}
		if c.PGRows, c.PGSum, err = db.pgSum(ctx, t); err != nil {
			return out, fmt.Errorf("postgres: verify %s: %w", t.name, err)
		}
		c.Equal = c.SQLiteRows == c.PGRows && c.SQLiteSum == c.PGSum
		out = append(out, c)
	}
	return out, nil
}

func sqliteSum(ctx context.Context, src *sql.DB, t copyTable) (int, uint64, error) {
	h := fnv.New64a()
	n := 0
	var after []any
	for {
		rows, err := readBatch(ctx, src, t, after, 5000)
		if err != nil {
			return 0, 0, err
		}
		for _, r := range rows {
			writeRow(h, r)
		}
		n += len(rows)
		if len(rows) < 5000 {
			return n, h.Sum64(), nil
		}
		after = keyOf(t, rows[len(rows)-1])
	}
}

func (db *DB) pgSum(ctx context.Context, t copyTable) (int, uint64, error) {
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.name
	}
	order := make([]string, len(t.key))
	for i, k := range t.key {
		order[i] = k
		if k == "guid" || k == "name" || k == "token_hash" || k == "queue" || k == "minute" || (k == "id" && (t.name == "queue_dead" || t.name == "goqite")) {
			order[i] = k + ` collate "C"` // SQLite's order of text: bytes
		}
	}
	rows, err := db.SQL.QueryContext(ctx, `select `+strings.Join(names, ", ")+` from `+t.name+` order by `+strings.Join(order, ", "))
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	h := fnv.New64a()
	n := 0
	vals := make([]any, len(t.cols))
	ptrs := make([]any, len(t.cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, 0, err
		}
		writeRow(h, vals)
		n++
	}
	return n, h.Sum64(), rows.Err()
}

// writeRow writes a row's values in one canonical form, whichever driver read them.
func writeRow(h interface{ Write([]byte) (int, error) }, row []any) {
	var b strings.Builder
	for _, v := range row {
		switch x := v.(type) {
		case nil:
			b.WriteString("N")
		case time.Time:
			b.WriteString("T" + x.UTC().Truncate(time.Millisecond).Format(time.RFC3339Nano))
		case bool:
			b.WriteString("B" + strconv.FormatBool(x))
		case int64:
			b.WriteString("I" + strconv.FormatInt(x, 10))
		case int32:
			b.WriteString("I" + strconv.FormatInt(int64(x), 10))
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1e15 {
				b.WriteString("I" + strconv.FormatInt(int64(x), 10))
			} else {
				b.WriteString("F" + strconv.FormatFloat(x, 'g', -1, 64))
			}
		case string:
			b.WriteString("S" + strconv.Quote(x))
		case []byte:
			b.WriteString("X" + hex.EncodeToString(x))
		default:
			b.WriteString(fmt.Sprintf("?%T:%v", v, v))
		}
		b.WriteByte(0)
	}
	b.WriteByte('\n')
	_, _ = h.Write([]byte(b.String()))
}
