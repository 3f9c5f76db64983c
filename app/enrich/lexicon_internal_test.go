package enrich

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/wordvec"
)

// The lexicon is small in memory: parsed, it holds well under half a megabyte of live heap
// (the binary's peak RSS is a target of issue 14).
func TestLexiconIsSmall(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	l := parseLexicon(lexiconText, regionsText)
	runtime.GC()
	runtime.ReadMemStats(&after)
	live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	forms := 0
	for _, c := range l.concepts {
		forms += len(c)
	}
	t.Logf("%d concepts, %d forms, %d keys: %d KB live heap", len(l.concepts), forms, len(l.keys), live/1024)
	if len(l.concepts) < 250 {
		t.Fatalf("%d concepts: the lexicon lost lines", len(l.concepts))
	}
	if live > 480<<10 {
		t.Fatalf("the parsed lexicon holds %d KB of heap, over 480 KB", live/1024)
	}
	runtime.KeepAlive(l)
}

// Every form of the lexicon is found by its own key, in its own language.
func TestLexiconLookup(t *testing.T) {
	l := theLexicon()
	for c, forms := range l.concepts {
		for _, f := range forms {
			found := false
			for _, got := range l.lookup(lexKeyOf(f.text), int(f.lang), false) {
				found = found || int(got) == c
			}
			if !found {
				t.Fatalf("%q (language %d) does not find its concept", f.text, f.lang)
			}
		}
	}
	// The regions, read on look-up: each line by its English name and its first form in
	// another script, in any language.
	for r, line := range l.regions {
		forms, _ := parseLexLine(line)
		var probe []lexForm
		for _, f := range forms {
			if f.lang == langEN || f.lang == langOther && !slices.ContainsFunc(probe, func(p lexForm) bool { return p.lang == langOther }) {
				probe = append(probe, f)
			}
		}
		if len(probe) < 2 {
			t.Fatalf("region line %q has no English form or none in another script", line)
		}
		for _, f := range probe {
			if !slices.Contains(l.lookup(lexKeyOf(f.text), int(f.lang), f.lang == langEN), uint16(len(l.concepts)+r)) {
				t.Fatalf("%q (language %d) does not find its region", f.text, f.lang)
			}
		}
	}
	if n := len(l.concepts) + len(l.regions); n >= 1<<16 {
		t.Fatalf("%d concepts and regions: their ids are uint16", n)
	}
	if cs := l.lookup(lexKeyOf("training"), langEN, false); len(cs) != 0 {
		t.Fatalf("training finds %v: the light plural stemmer should keep it apart from train", l.concepts[cs[0]])
	}
}

// Interests with their lexicon forms stay small: a form is stemmed only for its own language
// (stemming it for all eight took the stem cache to about 35 KB an interest).
func TestInterestsWithTheirFormsAreSmall(t *testing.T) {
	theLexicon()
	// The process's word indexes (made on their first look-up, once) are not the interests'.
	wordvec.Rank("the")
	notNoun("the")
	lines := []string{"5G and broadband internet", "AI and machine learning", "Amazon Web Services (AWS)",
		"Apple Mac and iPhone hardware", "Elektroautos und Tesla", "Ruby and Rails programming",
		"cats and dogs: pet care and pet products", "computer security: vulnerabilities, exploits and hacks",
		"fantasy baseball", "open source", "stock market: shares, earnings and IPOs", "the Go programming language and its toolchain"}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var specs []interestSpec
	forms := 0
	for _, l := range lines {
		s := parseInterest(l)
		for _, tm := range s.terms {
			if tm.alt > 0 {
				forms++
			}
		}
		specs = append(specs, s)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("12 interests, %d lexicon forms: %d KB", forms, live/1024)
	if forms < 100 || live > 320<<10 {
		t.Fatalf("12 interests with %d lexicon forms hold %d KB (at most 320 KB)", forms, live/1024)
	}
	runtime.KeepAlive(specs)
}

// The caches of parsed interests and topics stay bounded however many texts are parsed (users
// editing their interests, briefings' focuses), and give the same specs as a fresh parse.
func TestSpecCachesAreBounded(t *testing.T) {
	for i := range 3 * interestCache.max {
		specs := parseInterests(fmt.Sprintf("interest number %d about electric cars", i))
		if len(specs) != 1 {
			t.Fatalf("parsed %d interests", len(specs))
		}
		topicSpecs([]app.Topic{{Name: fmt.Sprint("Topic ", i), Keywords: []string{"broadband"}}})
	}
	for _, c := range []*specCache{interestCache, topicCache} {
		c.mu.RLock()
		n := len(c.m)
		c.mu.RUnlock()
		if n > c.max || n == 0 {
			t.Errorf("a cache holds %d texts (bound %d)", n, c.max)
		}
	}
	again := parseInterests("interest number 1 about electric cars")
	fresh := parseInterest("interest number 1 about electric cars")
	if len(again) != 1 || len(again[0].terms) != len(fresh.terms) {
		t.Errorf("after the cache started over: %d specs, %d terms; fresh %d terms", len(again), len(again[0].terms), len(fresh.terms))
	}
}

// The news-topic model is small in memory: loaded, it holds well under a megabyte of live heap
// (kept as a map of float arrays with a vector a word it took 7.6 MB; issue 26's peak RSS).
func TestNewsTopicModelIsSmall(t *testing.T) {
	newsTopics.once.Do(loadNewsTopics) // loaded once for the process; loaded again here to measure
	kept := newsTopics.blob
	newsTopics.blob, newsTopics.offs, newsTopics.vals, newsTopics.near = "", nil, nil, nil
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	loadNewsTopics()
	runtime.GC()
	runtime.ReadMemStats(&after)
	live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	words := len(newsTopics.offs) - 1
	t.Logf("%d words, %d with a vector: %d KB live heap", words, len(newsTopics.near), live/1024)
	if words < 5000 || len(newsTopics.near) < words/2 {
		t.Fatalf("%d words, %d with a vector: the model lost lines", words, len(newsTopics.near))
	}
	if live > 1<<20 {
		t.Fatalf("the news-topic model holds %d KB of heap, over 1 MB", live/1024)
	}
	if newsTopics.blob != kept {
		t.Fatal("the model read twice differs")
	}
}
