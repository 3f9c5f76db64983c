package sqlite

// KnownItemsQueryForTest is qKnownItems, for the query plan test.
const KnownItemsQueryForTest = qKnownItems
