package feeds

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// parseBudget is how long one parse of fetched content (a feed, a page, an article) may take.
// The bounds of bounds.go keep every parse linear in the body and capped, so a real feed
// parses in well under a second; the budget is the backstop for what they miss, so that no
// document holds a worker, or POST /api/sources, for longer. It is wall-clock time: on a
// busy machine a parse gets less CPU than that, never more.
const parseBudget = 10 * time.Second

// errParseBudget is the Err of a parse stopped by its budget.
var errParseBudget = errors.New("feeds: parse exceeded its time budget")

// budget is the deadline of one parse. Its reader fails once the deadline has passed or ctx
// is done, which stops a parser at its next read: the parsers read their input in chunks as
// they go (encoding/xml and x/net/html through a buffer of a few KiB), so the check comes
// every few KiB of input whatever the parser does with them.
type budget struct {
	ctx      context.Context
	deadline time.Time
	stopped  error // why a read failed, nil if none did
}

func newBudget(ctx context.Context) *budget {
	if ctx == nil {
		ctx = context.Background()
	}
	return &budget{ctx: ctx, deadline: time.Now().Add(parseBudget)}
}

// reader returns r, failing once the budget is spent.
func (b *budget) reader(r io.Reader) io.Reader { return &budgetReader{b: b, r: r} }

// spent reports whether the budget stopped a read, or has run out since.
func (b *budget) spent() bool {
	return b.stopped != nil || time.Now().After(b.deadline) || b.ctx.Err() != nil
}

// err is the error for a parse of a what ("feed", "page") that ran out of budget: the
// caller's own cancellation as it is, or a clear message for the source.
func (b *budget) err(what string) error {
	if err := b.ctx.Err(); err != nil {
		return fmt.Errorf("feeds: parse stopped: %w", err)
	}
	return &Error{Kind: KindParse, Err: errParseBudget,
		Message: fmt.Sprintf("This %s took too long to read: parsing it needed more than %s, so we stopped.", what, parseBudget)}
}

type budgetReader struct {
	b *budget
	r io.Reader
}

// budgetChunk is the most one Read hands out, so that the deadline is checked often.
const budgetChunk = 32 << 10

func (br *budgetReader) Read(p []byte) (int, error) {
	if br.b.stopped != nil {
		return 0, br.b.stopped
	}
	if br.b.ctx.Err() != nil || time.Now().After(br.b.deadline) {
		br.b.stopped = errParseBudget
		return 0, errParseBudget
	}
	if len(p) > budgetChunk {
		p = p[:budgetChunk]
	}
	return br.r.Read(p)
}
