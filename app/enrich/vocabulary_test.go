package enrich_test

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
)

// securityNews are items in the shapes security advisories and news take: most say
// "vulnerability" and name a CVE; the last says neither word of the interest.
var securityNews = []struct{ title, text string }{
	{"OpenSSH fixes two vulnerabilities, one exploitable before login", "OpenSSH 9.9p2 fixes CVE-2025-26465, a machine-in-the-middle vulnerability, and CVE-2025-26466, a denial of service. Upgrade and patch now; an exploit is public."},
	{"Critical vulnerability in Apache Tomcat under active exploitation", "CVE-2025-24813 lets a remote attacker run code on servers with partial PUT enabled. Attackers began exploiting the flaw days after the patch; upgrade to 10.1.35."},
	{"Ivanti patches security vulnerabilities in Connect Secure", "Ivanti released patches for CVE-2025-0282, a stack overflow exploited in the wild as a zero-day, and CVE-2025-0283. Apply the patch and check for compromise."},
	{"Chrome update fixes a zero-day vulnerability exploited in the wild", "Google patched CVE-2025-2783 in Chrome 134, a sandbox escape used in an espionage campaign. The exploit chain was reported by Kaspersky."},
	{"Fortinet warns of a new authentication bypass vulnerability", "CVE-2024-55591 allows a remote attacker to gain super-admin privileges on FortiOS. Fortinet says the vulnerability is exploited; patch or restrict the management interface."},
	{"Microsoft's Patch Tuesday fixes 57 vulnerabilities, six zero-days", "The March update fixes 57 security vulnerabilities including six actively exploited zero-days (CVE-2025-24983 among them) and remote code execution flaws in Office."},
	{"Linux kernel vulnerability lets local users gain root", "A use-after-free in the netfilter subsystem, CVE-2024-1086, has a public exploit. Distributions shipped patched kernels; the vulnerability affects versions 5.14 to 6.6."},
	{"Veeam patches a critical remote code execution vulnerability", "CVE-2025-23120 in Backup & Replication allows remote code execution by domain users. Veeam urges customers to patch; no exploit is known yet."},
}

// cveItem is the item of the issue: a CVE and remote code execution, without "security" or
// "vulnerabilities".
var cveItem = struct{ title, text string }{
	"CVE-2026-1234: remote code execution in libxml2",
	"A heap overflow in the XML parser lets a remote attacker run arbitrary code. Fixed in 2.13.5; CVE-2026-1234 is rated critical and distributions are shipping patched packages.",
}

// TestVocabularyLearnedFromTheReadersItems: among the items of the evaluation corpus (38 real
// feeds) and a handful of security news, the words that go with "security vulnerabilities" in
// the reader's items are learned (CVE, exploit, patch …), and with them added to the interest,
// as the Settings page offers, the CVE item the interest's words miss ranks above every item of
// the feeds (it ranked last without them).
func TestVocabularyLearnedFromTheReadersItems(t *testing.T) {
	now := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	var items []app.EnrichInput
	for _, it := range evalCorpus(t) {
		items = append(items, app.EnrichInput{Title: it.title, Text: it.text, Link: it.link, Now: now})
	}
	for i, s := range securityNews {
		items = append(items, app.EnrichInput{Title: s.title, Text: s.text, Link: "http://security.invalid/" + string(rune('a'+i)), Now: now})
	}
	cve := app.EnrichInput{Title: cveItem.title, Text: cveItem.text, Link: "http://security.invalid/cve", Now: now}
	items = append(items, cve)
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	for _, in := range items {
		e.Stats().Observe(in.Title + " " + in.Text)
	}
	const interests = "security vulnerabilities"
	learned := e.Vocabulary(interests, items, 6)
	if len(learned) != 1 || learned[0].Interest != interests {
		t.Fatalf("learned %+v, want words for %q", learned, interests)
	}
	words := learned[0].Words
	t.Logf("%s — also: %s", interests, strings.Join(words, ", "))
	if !slices.Contains(words, "CVE") {
		t.Errorf("CVE is not among the words learned: %v", words)
	}
	for _, w := range words {
		if w == "security" || w == "vulnerabilities" || w == "vulnerability" {
			t.Errorf("learned the interest's own word %q", w)
		}
	}
	rankOf := func(interests string) int {
		type scored struct {
			link  string
			score int
		}
		var all []scored
		for _, in := range items {
			in.Interests = interests
			res, err := e.Enrich(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, scored{in.Link, res.Score})
		}
		sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
		for i, s := range all {
			if s.link == cve.Link {
				return i + 1
			}
		}
		return -1
	}
	before := rankOf(interests)
	with := interests + ", " + strings.Join(words, ", ")
	after := rankOf(with)
	t.Logf("the CVE item ranks %d of %d for %q, %d for %q", before, len(items), interests, after, with)
	// Above it may stand only the security news that taught the words (relevant items too):
	// no item of the 38 feeds.
	if after > len(securityNews)+1 {
		t.Errorf("with the learned words the CVE item ranks %d, below items of the feeds", after)
	}
	// Nothing to learn from: an interest no item matches strongly.
	if got := e.Vocabulary("beekeeping", items, 6); len(got) != 0 {
		t.Errorf("learned %+v for an interest nothing matches", got)
	}
}

// BenchmarkVocabulary learns the vocabulary of three interests from 3,000 items (the corpus
// repeated), what the Settings page's vocabulary costs.
func BenchmarkVocabulary(b *testing.B) {
	var items []app.EnrichInput
	corpus := evalCorpus(b)
	for len(items) < 3000 {
		for _, it := range corpus {
			items = append(items, app.EnrichInput{Title: it.title, Text: it.text, Link: it.link, SourceName: it.feed})
		}
	}
	items = items[:3000]
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	b.ResetTimer()
	for range b.N {
		e.Vocabulary("security vulnerabilities\nopen source\nthe Go programming language", items, 6)
	}
}
