package sqlite_test

import (
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/storetest"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// The stores' conformance suite (app/storetest), which package postgres runs too.

func TestStoreAccounts(t *testing.T) {
	storetest.Accounts(t, func(t *testing.T, c app.Clock) app.AccountStore { return sqlitetest.NewWithClock(t, c) })
}

func TestStoreSettings(t *testing.T) {
	storetest.Settings(t, func(t *testing.T, c app.Clock) storetest.SettingsStore { return sqlitetest.NewWithClock(t, c) })
}

func TestStoreFolders(t *testing.T) {
	storetest.Folders(t, func(t *testing.T, c app.Clock) app.FolderStore { return sqlitetest.NewWithClock(t, c) })
}

func TestStoreSources(t *testing.T) {
	storetest.Sources(t, func(t *testing.T, c app.Clock) storetest.SourceStore { return sqlitetest.NewWithClock(t, c) })
}

func TestStoreItems(t *testing.T) {
	storetest.Items(t, func(t *testing.T, c app.Clock) storetest.SourceStore { return sqlitetest.NewWithClock(t, c) })
}

func TestStoreEnriching(t *testing.T) {
	storetest.Enriching(t, func(t *testing.T, c app.Clock) storetest.EnrichingStore { return sqlitetest.NewWithClock(t, c) })
}

func TestStoreBriefings(t *testing.T) {
	storetest.Briefings(t, func(t *testing.T, c app.Clock) storetest.BriefingStore { return sqlitetest.NewWithClock(t, c) })
}

func TestStoreFeedback(t *testing.T) {
	storetest.Feedback(t, func(t *testing.T, c app.Clock) storetest.FeedbackStore { return sqlitetest.NewWithClock(t, c) })
}

func TestStoreReader(t *testing.T) {
	storetest.Reader(t, func(t *testing.T, c app.Clock) storetest.ReaderStore { return sqlitetest.NewWithClock(t, c) })
}

func TestStoreCare(t *testing.T) {
	if storetest.TombstoneGraceForTests != sqlite.TombstoneGrace {
		t.Fatalf("the suite's tombstone grace is not sqlite's")
	}
	storetest.Care(t, func(t *testing.T, c app.Clock) storetest.CareStore { return sqlitetest.NewWithClock(t, c) })
}
