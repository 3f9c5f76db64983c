package cli

import "testing"

// TestRedactURL: a database's address is shown without its password, wherever it is written.
func TestRedactURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"postgres://md:s3cret@db.example:5432/deck?sslmode=require", "postgres://md:xxxxx@db.example:5432/deck?sslmode=require"},
		{"postgres://md@db.example/deck", "postgres://md@db.example/deck"},
		{"postgres://db.example/deck?user=md&password=s3cret", "postgres://db.example/deck?password=xxxxx&user=md"},
		{"host=db.example password=s3cret", "********"},
	} {
		if got := RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	c := &Config{DataDir: "/var/lib/md"}
	if got := c.DatabaseName(); got != "/var/lib/md/morningdeck.db" {
		t.Errorf("the SQLite file: %q", got)
	}
	c.Database = "postgres://md:s3cret@db/deck"
	if got := c.DatabaseName(); got != "postgres://md:xxxxx@db/deck" {
		t.Errorf("the PostgreSQL database: %q", got)
	}
}
