package sqlite

// KnownItemsQueryForTest is qKnownItems, for the query plan test.
const KnownItemsQueryForTest = qKnownItems

// DueSourcesQueryForTest is qDueSources, for the query plan test.
const DueSourcesQueryForTest = qDueSources

// NewItemsQueryForTest is qNewItems, for the query plan test.
const NewItemsQueryForTest = qNewItems

// SourceSummaryQueryForTest is qSourceSummary, for the query plan test.
const SourceSummaryQueryForTest = qSourceSummary

// WALPendingForTest is walPending: the log's frames not yet copied into the database file.
func (db *DB) WALPendingForTest() (int64, bool) { return db.walPending() }
