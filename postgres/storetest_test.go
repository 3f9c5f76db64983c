package postgres_test

import (
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/storetest"
	"github.com/morningdeck/morningdeck/postgres"
	"github.com/morningdeck/morningdeck/postgres/pgtest"
)

// The stores' conformance suite (app/storetest), which package sqlite runs too.

func TestStoreAccounts(t *testing.T) {
	storetest.Accounts(t, func(t *testing.T, c app.Clock) app.AccountStore { return pgtest.NewWithClock(t, c) })
}

func TestStoreSettings(t *testing.T) {
	storetest.Settings(t, func(t *testing.T, c app.Clock) storetest.SettingsStore { return pgtest.NewWithClock(t, c) })
}

func TestStoreFolders(t *testing.T) {
	storetest.Folders(t, func(t *testing.T, c app.Clock) app.FolderStore { return pgtest.NewWithClock(t, c) })
}

func TestStoreSources(t *testing.T) {
	storetest.Sources(t, func(t *testing.T, c app.Clock) storetest.SourceStore { return pgtest.NewWithClock(t, c) })
}

func TestStoreItems(t *testing.T) {
	storetest.Items(t, func(t *testing.T, c app.Clock) storetest.SourceStore { return pgtest.NewWithClock(t, c) })
}

func TestStoreEnriching(t *testing.T) {
	storetest.Enriching(t, func(t *testing.T, c app.Clock) storetest.EnrichingStore { return pgtest.NewWithClock(t, c) })
}

func TestStoreBriefings(t *testing.T) {
	storetest.Briefings(t, func(t *testing.T, c app.Clock) storetest.BriefingStore { return pgtest.NewWithClock(t, c) })
}

func TestStoreFeedback(t *testing.T) {
	storetest.Feedback(t, func(t *testing.T, c app.Clock) storetest.FeedbackStore { return pgtest.NewWithClock(t, c) })
}

func TestStoreReader(t *testing.T) {
	storetest.Reader(t, func(t *testing.T, c app.Clock) storetest.ReaderStore { return pgtest.NewWithClock(t, c) })
}

func TestStoreCare(t *testing.T) {
	if storetest.TombstoneGraceForTests != postgres.TombstoneGrace {
		t.Fatalf("the suite's tombstone grace is not postgres's")
	}
	storetest.Care(t, func(t *testing.T, c app.Clock) storetest.CareStore { return pgtest.NewWithClock(t, c) })
}
