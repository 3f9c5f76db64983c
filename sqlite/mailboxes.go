package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/morningdeck/morningdeck/app"
)

var _ app.MailboxStore = (*DB)(nil)

// CreateMailSource inserts a mail source, its mailbox and its sealed password, and calls then
// (which enqueues its first fetch), in one transaction.
func (db *DB) CreateMailSource(ctx context.Context, s *app.Source, m app.Mailbox, sealed []byte, then app.TxFunc) error {
	if s.Type != app.SourceIMAP {
		return fmt.Errorf("sqlite: create mail source: type %q", s.Type)
	}
	return db.CreateSource(ctx, s, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `insert into imap_sources (source_id, host, port, security, username, folder, sender, mark_read, first_import)
			values (?, ?, ?, ?, ?, ?, ?, ?, ?)`, s.ID, m.Host, m.Port, string(m.Security), m.Username, m.Folder, m.Sender, m.MarkRead, m.FirstImport); err != nil {
			return fmt.Errorf("sqlite: insert mailbox: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `insert into imap_secrets (source_id, sealed) values (?, ?)`, s.ID, sealed); err != nil {
			return fmt.Errorf("sqlite: insert mailbox secret: %w", err)
		}
		if then != nil {
			return then(ctx, tx)
		}
		return nil
	})
}

const mailboxColumns = `m.host, m.port, m.security, m.username, m.folder, m.sender, m.mark_read, m.first_import`

func scanMailbox(row scanner, extra ...any) (*app.Mailbox, error) {
	var m app.Mailbox
	var sec string
	var mark int
	if err := row.Scan(append([]any{&m.Host, &m.Port, &sec, &m.Username, &m.Folder, &m.Sender, &mark, &m.FirstImport}, extra...)...); err != nil {
		return nil, err
	}
	m.Security, m.MarkRead = app.MailSecurity(sec), mark != 0
	return &m, nil
}

// Mailbox is the mailbox of one of the user's mail sources (never its password).
func (db *DB) Mailbox(ctx context.Context, userID, sourceID int64) (*app.Mailbox, error) {
	m, err := scanMailbox(db.Read.QueryRowContext(ctx, `select `+mailboxColumns+` from imap_sources m join sources s on s.id = m.source_id
		where m.source_id = ? and s.user_id = ?`, sourceID, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "Source %d is not one of your mail folders.", sourceID)
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: mailbox: %w", err)
	}
	return m, nil
}

// UpdateMailbox changes a mailbox and its source's URL; a nil sealed keeps the password. A
// changed server, user or folder starts over: the cursor (the source's etag) is cleared.
func (db *DB) UpdateMailbox(ctx context.Context, userID, sourceID int64, m app.Mailbox, sealed []byte) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		old, err := scanMailbox(tx.QueryRowContext(ctx, `select `+mailboxColumns+` from imap_sources m join sources s on s.id = m.source_id
			where m.source_id = ? and s.user_id = ?`, sourceID, userID))
		if errors.Is(err, sql.ErrNoRows) {
			return app.Errorf(app.ENOTFOUND, "Source %d is not one of your mail folders.", sourceID)
		} else if err != nil {
			return fmt.Errorf("sqlite: update mailbox: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `update imap_sources set host = ?, port = ?, security = ?, username = ?, folder = ?, sender = ?,
			mark_read = ?, first_import = ? where source_id = ?`, m.Host, m.Port, string(m.Security), m.Username, m.Folder, m.Sender,
			m.MarkRead, m.FirstImport, sourceID); err != nil {
			return fmt.Errorf("sqlite: update mailbox: %w", err)
		}
		moved := old.Host != m.Host || old.Port != m.Port || old.Username != m.Username || old.Folder != m.Folder || old.Sender != m.Sender
		q := `update sources set url = ? where id = ?`
		if moved {
			q = `update sources set url = ?, etag = '' where id = ?`
		}
		if _, err := tx.ExecContext(ctx, q, m.URL(), sourceID); err != nil {
			if strings.Contains(err.Error(), "UNIQUE constraint failed") {
				return app.Errorf(app.ECONFLICT, "You already follow %s.", m.URL())
			}
			return fmt.Errorf("sqlite: update mailbox: %w", err)
		}
		if sealed != nil {
			if _, err := tx.ExecContext(ctx, `update imap_secrets set sealed = ? where source_id = ?`, sealed, sourceID); err != nil {
				return fmt.Errorf("sqlite: update mailbox secret: %w", err)
			}
		}
		return nil
	})
}

// MailAccount is a source's mailbox and sealed password: the fetcher's, and the only query
// that reads imap_secrets. Exclude lists the senders of the user's other sources that read the
// same folder one sender each (when this one reads the whole folder).
func (db *DB) MailAccount(ctx context.Context, sourceID int64) (*app.Mailbox, []byte, error) {
	var sealed []byte
	var userID int64
	m, err := scanMailbox(db.Read.QueryRowContext(ctx, `select `+mailboxColumns+`, k.sealed, s.user_id from imap_sources m
		join imap_secrets k on k.source_id = m.source_id join sources s on s.id = m.source_id where m.source_id = ?`, sourceID), &sealed, &userID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, app.Errorf(app.ENOTFOUND, "Source %d is not a mail folder.", sourceID)
	} else if err != nil {
		return nil, nil, fmt.Errorf("sqlite: mail account: %w", err)
	}
	if m.Sender == "" {
		rows, err := db.Read.QueryContext(ctx, `select m.sender from imap_sources m join sources s on s.id = m.source_id
			where m.host = ? and m.username = ? and m.folder = ? and m.sender != '' and s.user_id = ? and m.source_id != ?`,
			m.Host, m.Username, m.Folder, userID, sourceID)
		if err != nil {
			return nil, nil, fmt.Errorf("sqlite: mail account: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return nil, nil, fmt.Errorf("sqlite: mail account: %w", err)
			}
			m.Exclude = append(m.Exclude, s)
		}
		if err := rows.Err(); err != nil {
			return nil, nil, fmt.Errorf("sqlite: mail account: %w", err)
		}
	}
	return m, sealed, nil
}

// MailSenders lists the senders of a mail source's items (app.ExtraSender), most items first,
// with the user's source for each sender that has one.
func (db *DB) MailSenders(ctx context.Context, userID, sourceID int64, limit int) ([]app.MailSender, error) {
	rows, err := db.Read.QueryContext(ctx, `with mine as (select m.host, m.username, m.folder from imap_sources m
			join sources s on s.id = m.source_id where m.source_id = ?1 and s.user_id = ?2)
		select lower(json_extract(i.extra, '$.`+app.ExtraSender+`')) as addr, max(i.author), count(*),
			coalesce((select o.source_id from imap_sources o join sources os on os.id = o.source_id, mine
				where os.user_id = ?2 and o.host = mine.host and o.username = mine.username and o.folder = mine.folder
				and o.sender = lower(json_extract(i.extra, '$.`+app.ExtraSender+`'))), 0)
		from items i where i.source_id = ?1 and i.user_id = ?2 and json_valid(i.extra) and addr is not null
		group by addr order by count(*) desc, addr limit ?3`, sourceID, userID, max(limit, 1))
	if err != nil {
		return nil, fmt.Errorf("sqlite: mail senders: %w", err)
	}
	defer rows.Close()
	var out []app.MailSender
	for rows.Next() {
		var s app.MailSender
		if err := rows.Scan(&s.Address, &s.Name, &s.Items, &s.SourceID); err != nil {
			return nil, fmt.Errorf("sqlite: mail senders: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
