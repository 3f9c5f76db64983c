package sqlite

import (
	"container/list"
	"context"
	"database/sql"
	"database/sql/driver"
	"strings"

	msqlite "modernc.org/sqlite"
)

// The write connection keeps the statements it runs prepared (issue 26). goqite builds its SQL
// on every call and runs it with tx.ExecContext / QueryRowContext, and database/sql hands such a
// call to the driver, which parses the SQL, runs it and throws the statement away: with goqite
// doing every queue operation, parsing its four statements (and compiling goqite's trigger
// into each UPDATE) was a tenth of an all-304 cycle's CPU. The writer's connection keeps the
// last stmtCacheSize statements by their text, prepared, and runs a statement again from there;
// statements of our own that are run often were prepared at Open already (hot), as before.

// stmtCacheSize bounds the statements kept per connection (the writer runs a few dozen texts;
// those built with a variable number of parameters come and go).
const stmtCacheSize = 128

// openCached opens dsn with modernc's driver, each connection keeping its statements prepared.
func openCached(dsn string) *sql.DB {
	return sql.OpenDB(cachedConnector{dsn: dsn, d: &msqlite.Driver{}})
}

type cachedConnector struct {
	dsn string
	d   *msqlite.Driver
}

func (c cachedConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.d.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &cachedConn{inner: conn, lru: list.New(), byText: map[string]*list.Element{}}, nil
}

func (c cachedConnector) Driver() driver.Driver { return c.d }

// inner is what modernc's connection implements, all of which database/sql uses.
type innerConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

type cachedStmt struct {
	text string
	st   driver.Stmt
	busy bool // its rows are open: a second use at the same time gets a statement of its own
}

type cachedConn struct {
	inner  driver.Conn
	lru    *list.List // of *cachedStmt, most recently used first
	byText map[string]*list.Element
}

func (c *cachedConn) conn() innerConn { return c.inner.(innerConn) }

// cacheable: one statement (a script of several is prepared anew each time by the driver).
func cacheable(query string) bool {
	q := strings.TrimRight(strings.TrimSpace(query), ";")
	return !strings.Contains(q, ";")
}

// get returns the cached statement of query, preparing and keeping it if need be; nil when
// query is not to be kept or its statement is in use.
func (c *cachedConn) get(ctx context.Context, query string) (*cachedStmt, error) {
	if e, ok := c.byText[query]; ok {
		cs := e.Value.(*cachedStmt)
		if cs.busy {
			return nil, nil
		}
		c.lru.MoveToFront(e)
		return cs, nil
	}
	if !cacheable(query) {
		return nil, nil
	}
	st, err := c.conn().PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	cs := &cachedStmt{text: query, st: st}
	c.byText[query] = c.lru.PushFront(cs)
	for e := c.lru.Back(); c.lru.Len() > stmtCacheSize && e != nil; {
		prev := e.Prev()
		if old := e.Value.(*cachedStmt); !old.busy {
			_ = old.st.Close()
			delete(c.byText, old.text)
			c.lru.Remove(e)
		}
		e = prev
	}
	return cs, nil
}

func (c *cachedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs, err := c.get(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.conn().ExecContext(ctx, query, args)
	}
	return cs.st.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (c *cachedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs, err := c.get(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.conn().QueryContext(ctx, query, args)
	}
	rows, err := cs.st.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	cs.busy = true
	return &cachedRows{Rows: rows, cs: cs}, nil
}

func (c *cachedConn) Close() error {
	for e := c.lru.Front(); e != nil; e = e.Next() {
		_ = e.Value.(*cachedStmt).st.Close()
	}
	c.lru.Init()
	clear(c.byText)
	return c.inner.Close()
}

func (c *cachedConn) Prepare(query string) (driver.Stmt, error) { return c.inner.Prepare(query) }
func (c *cachedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.conn().PrepareContext(ctx, query)
}
func (c *cachedConn) Begin() (driver.Tx, error) {
	return c.conn().BeginTx(context.Background(), driver.TxOptions{})
}
func (c *cachedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.conn().BeginTx(ctx, opts)
}
func (c *cachedConn) Ping(ctx context.Context) error         { return c.conn().Ping(ctx) }
func (c *cachedConn) ResetSession(ctx context.Context) error { return c.conn().ResetSession(ctx) }
func (c *cachedConn) IsValid() bool                          { return c.conn().IsValid() }

// cachedRows frees its statement for the next use when closed.
type cachedRows struct {
	driver.Rows
	cs *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.cs.busy = false
	return err
}
