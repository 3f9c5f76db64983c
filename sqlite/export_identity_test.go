package sqlite

// KnownItemsQueryForTest is qKnownItems, for the query plan test.
const KnownItemsQueryForTest = qKnownItems

// DueSourcesQueryForTest is qDueSources, for the query plan test.
const DueSourcesQueryForTest = qDueSources

// NewItemsQueryForTest is qNewItems, for the query plan test.
const NewItemsQueryForTest = qNewItems

// SourceSummaryQueryForTest is qSourceSummary, for the query plan test.
const SourceSummaryQueryForTest = qSourceSummary
