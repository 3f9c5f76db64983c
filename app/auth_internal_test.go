package app

import (
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// The hash a sign-in for an unknown user is checked against is written out, not generated at
// start-up: it must be a real bcrypt hash at the cost real passwords get, or a wrong name
// would answer faster than a wrong password.
func TestDummyHashCostsLikeAPassword(t *testing.T) {
	cost, err := bcrypt.Cost(dummyHash)
	if err != nil {
		t.Fatalf("dummyHash is not a bcrypt hash: %v", err)
	}
	if cost != bcrypt.DefaultCost {
		t.Fatalf("dummyHash cost %d, want bcrypt.DefaultCost %d", cost, bcrypt.DefaultCost)
	}
	if bcrypt.CompareHashAndPassword(dummyHash, []byte("morningdeck-no-such-user")) != nil {
		t.Fatal("dummyHash does not match the text it was made from")
	}
}
