package enrich_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/app/feeds"
)

var (
	sentenceEnd = regexp.MustCompile(`[.!?]["”)]?\s+`)
	rubyWord    = regexp.MustCompile(`\b(ruby|rails)\b`)
	markup      = regexp.MustCompile(`<[^<>]*>`)
)

var update = flag.Bool("update", false, "rewrite the golden files")

type article struct {
	feed  string
	title string
	text  string
	pub   *time.Time
}

// corpus fetches every item of the shared corpus feeds through the real feed parser.
func corpus(t testing.TB) []article {
	t.Helper()
	dir := "../../testdata/corpus/feeds"
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	files, err := filepath.Glob(filepath.Join(dir, "*.xml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("corpus: %v", err)
	}
	files = append(files, filepath.Join(dir, "json_feed.json"))
	f := feeds.New(feeds.Options{})
	var out []article
	for _, file := range files {
		name := filepath.Base(file)
		res, err := f.Fetch(context.Background(), feeds.Request{URL: srv.URL + "/" + name, Type: app.SourceRSS})
		if err != nil {
			continue // the *FirstEntry* files are fragments, not feeds
		}
		for _, it := range res.Items {
			out = append(out, article{feed: name, title: it.Title, text: it.Text, pub: it.PublishedAt})
		}
	}
	return out
}

func seeded(t testing.TB, arts []article) *enrich.Embedded {
	stats := enrich.NewStats(200_000)
	for _, a := range arts {
		stats.Observe(a.title + " " + a.text)
	}
	return enrich.NewEmbedded(enrich.EmbeddedOptions{Stats: stats})
}

func TestEmbeddedOnCorpus(t *testing.T) {
	arts := corpus(t)
	e := seeded(t, arts)
	ctx := context.Background()
	var golden strings.Builder
	for _, a := range arts {
		res, err := e.Enrich(ctx, app.EnrichInput{Title: a.title, Text: a.text, PublishedAt: a.pub})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(strings.Fields(res.Summary)); n > 62 {
			t.Errorf("%s: summary of %d words", a.title, n)
		}
		// The summary is made of the article's own sentences.
		if a.text != "" && res.Summary != a.title { // an empty text (or only "Comments") falls back to the title
			for _, s := range sentenceEnd.Split(strings.TrimSuffix(res.Summary, "…"), -1) {
				plain := strings.Join(strings.Fields(markup.ReplaceAllString(a.text, " ")), " ") // escaped markup is taken out
				if s = strings.TrimSpace(s); len(s) > 20 && !strings.Contains(plain, s[:20]) {
					t.Errorf("%s: summary sentence %q is not from the article", a.title, s)
				}
			}
		}
		if len(res.Tags) > 5 {
			t.Errorf("%s: %d tags", a.title, len(res.Tags))
		}
		for _, tag := range res.Tags {
			if tag != strings.ToLower(tag) || strings.ContainsAny(tag, "<>&;") || strings.Trim(tag, "0123456789 ") == "" || len(tag) < 3 {
				t.Errorf("%s: garbage tag %q", a.title, tag)
			}
			for _, w := range strings.Fields(tag) {
				if w == "the" || w == "and" || w == "for" || w == "with" || w == "that" || w == "nbsp" {
					t.Errorf("%s: stop word in tag %q", a.title, tag)
				}
			}
		}
		fmt.Fprintf(&golden, "%s | %s → %s\n", a.feed, a.title, strings.Join(res.Tags, ", "))
	}
	path := filepath.Join("testdata", "tags.golden")
	if *update {
		if err := os.WriteFile(path, []byte(golden.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if string(want) != golden.String() {
		t.Errorf("tags differ from %s (review and run go test -update if the change is right)", path)
	}
}

func TestEmbeddedScoring(t *testing.T) {
	arts := corpus(t)
	e := seeded(t, arts)
	ctx := context.Background()
	t.Run("interests 'ruby rails' rank the Ruby posts above the others", func(t *testing.T) {
		type scored struct {
			art   article
			score int
			why   string
		}
		var all []scored
		for _, a := range arts {
			res, _ := e.Enrich(ctx, app.EnrichInput{Title: a.title, Text: a.text, Interests: "ruby rails"})
			all = append(all, scored{a, res.Score, res.Reasoning})
		}
		isRuby := func(a article) bool {
			return len(rubyWord.FindAllString(strings.ToLower(a.title+" "+a.text), -1)) >= 2
		}
		var rubySum, otherSum, rubyN, otherN float64
		for _, s := range all {
			if isRuby(s.art) {
				rubySum += float64(s.score)
				rubyN++
				if !strings.Contains(s.why, "ruby") && !strings.Contains(s.why, "rails") {
					t.Errorf("reason %q does not name what matched", s.why)
				}
			} else {
				otherSum += float64(s.score)
				otherN++
			}
		}
		if rubyN < 5 {
			t.Fatalf("only %v ruby articles in the corpus", rubyN)
		}
		rubyMean, otherMean := rubySum/rubyN, otherSum/otherN
		t.Logf("mean score: ruby %.1f (%v items), others %.1f (%v items)", rubyMean, rubyN, otherMean, otherN)
		if rubyMean < otherMean+25 {
			t.Errorf("ruby mean %.1f not clearly above the others' %.1f", rubyMean, otherMean)
		}
		sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
		ruby := 0
		for _, s := range all[:10] {
			if isRuby(s.art) {
				ruby++
			}
		}
		if ruby < 8 {
			t.Errorf("%d of the top 10 are ruby posts", ruby)
		}
		if all[len(all)-1].score >= 30 {
			t.Errorf("an unrelated item scored %d", all[len(all)-1].score)
		}
	})
	t.Run("recency: the same article scores higher when published today", func(t *testing.T) {
		now := time.Now()
		old := now.Add(-30 * 24 * time.Hour)
		a, _ := e.Enrich(ctx, app.EnrichInput{Title: "Ruby 2.0 released", Text: "Ruby news.", Interests: "ruby", PublishedAt: &now, Now: now})
		b, _ := e.Enrich(ctx, app.EnrichInput{Title: "Ruby 2.0 released", Text: "Ruby news.", Interests: "ruby", PublishedAt: &old, Now: now})
		if a.Score <= b.Score || !strings.Contains(a.Reasoning, "published today") {
			t.Fatalf("today %d (%s) vs a month ago %d", a.Score, a.Reasoning, b.Score)
		}
	})
}

func TestEmbeddedTopics(t *testing.T) {
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	topics := []app.Topic{
		{Name: "Databases", Keywords: []string{"sqlite", "postgres", "query planner"}},
		{Name: "Cycling", Keywords: []string{"bike", "tour de france"}},
		{Name: "Go", Keywords: []string{"golang", "goroutine"}},
		{Name: "Cooking", Keywords: []string{"recipe"}},
	}
	ctx := context.Background()
	t.Run("the matching topics are given, best first, at most three above the threshold", func(t *testing.T) {
		res, _ := e.Enrich(ctx, app.EnrichInput{Title: "SQLite in Go", Text: "We moved from Postgres to SQLite. The query planner of SQLite is simple, and a goroutine per connection in Golang works well with SQLite.", Topics: topics})
		if len(res.Topics) == 0 || res.Topics[0] != "Databases" || contains(res.Topics, "Cycling") || contains(res.Topics, "Cooking") || !contains(res.Topics, "Go") {
			t.Fatalf("topics %v", res.Topics)
		}
	})
	t.Run("with no topic matching, the item has none and the source's topics are given apart as usual ones", func(t *testing.T) {
		res, _ := e.Enrich(ctx, app.EnrichInput{Title: "Gardening in winter", Text: "Cover the beds with leaves.", Topics: topics, SourceTopics: []string{"Cycling"}})
		if len(res.Topics) != 0 || len(res.UsualTopics) != 1 || res.UsualTopics[0] != "Cycling" {
			t.Fatalf("topics %v, usual topics %v", res.Topics, res.UsualTopics)
		}
	})
	t.Run("a matching item gets its own topics and no usual ones", func(t *testing.T) {
		res, _ := e.Enrich(ctx, app.EnrichInput{Title: "Recipe: winter soup", Text: "A recipe for a thick soup.", Topics: topics, SourceTopics: []string{"Cycling"}})
		if len(res.Topics) != 1 || res.Topics[0] != "Cooking" || len(res.UsualTopics) != 0 {
			t.Fatalf("topics %v, usual topics %v", res.Topics, res.UsualTopics)
		}
	})
}

func TestEmbeddedLanguages(t *testing.T) {
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	for _, tc := range []struct{ lang, title, text string }{
		{"fr", "La ville rénove le pont", "La mairie a voté hier la rénovation du pont de la Loire. Les travaux du pont commenceront au printemps et dureront deux ans. Les cyclistes pourront traverser le pont pendant les travaux, selon l'adjoint chargé de la voirie."},
		{"de", "Die Stadt saniert die Brücke", "Der Stadtrat hat gestern die Sanierung der Brücke beschlossen. Die Arbeiten an der Brücke beginnen im Frühjahr und dauern zwei Jahre. Radfahrer können die Brücke während der Bauarbeiten weiter nutzen."},
		{"es", "La ciudad renueva el puente", "El ayuntamiento aprobó ayer la renovación del puente sobre el río. Las obras del puente empezarán en primavera y durarán dos años. Los ciclistas podrán cruzar el puente durante las obras."},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			res, _ := e.Enrich(context.Background(), app.EnrichInput{Title: tc.title, Text: tc.text})
			if len(res.Tags) == 0 {
				t.Fatal("no tags")
			}
			bridge := map[string]string{"fr": "pont", "de": "brücke", "es": "puente"}[tc.lang]
			if !contains(res.Tags, bridge) {
				t.Errorf("tags %v lack %q", res.Tags, bridge)
			}
			for _, tag := range res.Tags {
				for _, w := range strings.Fields(tag) {
					if map[string]bool{"la": true, "le": true, "les": true, "der": true, "die": true, "das": true, "und": true, "el": true, "los": true, "las": true, "del": true, "des": true, "pendant": false}[w] {
						t.Errorf("stop word in tag %q", tag)
					}
				}
			}
			t.Logf("%s: %v | %s", tc.lang, res.Tags, res.Summary)
		})
	}
}

func TestSummarize(t *testing.T) {
	t.Run("keeps abbreviations and decimals inside sentences and stays within the word budget", func(t *testing.T) {
		text := "Dr. Smith paid $3.50 for the U.S. edition. It sold out in an hour. " + strings.Repeat("The printers worked through the night to meet the demand of readers. ", 20)
		s := enrich.Summarize(text, 40)
		if words := len(strings.Fields(s)); words > 40 {
			t.Fatalf("%d words: %q", words, s)
		}
		if !strings.Contains(text, strings.TrimSuffix(s, "…")[:20]) {
			t.Fatalf("summary %q not from the text", s)
		}
	})
	t.Run("a short text is its own summary; an empty one gives nothing", func(t *testing.T) {
		if s := enrich.Summarize("One sentence only.", 60); s != "One sentence only." {
			t.Fatalf("%q", s)
		}
		if s := enrich.Summarize("", 60); s != "" {
			t.Fatalf("%q", s)
		}
	})
	t.Run("CentralSentences fits a character budget", func(t *testing.T) {
		text := strings.Repeat("Queues in SQLite are durable and simple to run. ", 200)
		if s := enrich.CentralSentences(text, 500); len(s) > 500 || s == "" {
			t.Fatalf("%d chars", len(s))
		}
	})
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// BenchmarkEmbedded enriches the corpus articles; the target is ≥ 200 items/s on 2 cores.
func BenchmarkEmbedded(b *testing.B) {
	arts := corpus(b)
	e := seeded(b, arts)
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	cpuStart := cpuSeconds()
	n := 0
	for range b.N {
		for _, a := range arts {
			if _, err := e.Enrich(ctx, app.EnrichInput{Title: a.title, Text: a.text, Interests: "ruby rails databases"}); err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "items/s")
	b.ReportMetric(float64(n)/(cpuSeconds()-cpuStart), "items/cpu-s") // the machine may be shared
}

// BenchmarkEmbeddedBroad enriches the corpus articles for broad, one-word interests, which the
// word vectors read (semantic.go): what an item is about costs a pass over its first words.
func BenchmarkEmbeddedBroad(b *testing.B) {
	benchEnrichFor(b, "entertainment\nhealth\ntechnology")
}

// BenchmarkEmbeddedSections enriches the corpus articles for interests that name news
// sections, read by the news-topic model and through the word vectors against the sections'
// seeds (newstopics.go).
func BenchmarkEmbeddedSections(b *testing.B) {
	benchEnrichFor(b, "sports\nworld news\nreligion\nmedia")
}

// benchEnrichFor enriches the corpus articles for interests, reporting items per CPU-second.
func benchEnrichFor(b *testing.B, interests string) {
	arts := corpus(b)
	e := seeded(b, arts)
	ctx := context.Background()
	b.ResetTimer()
	cpuStart := cpuSeconds()
	n := 0
	for range b.N {
		for _, a := range arts {
			if _, err := e.Enrich(ctx, app.EnrichInput{Title: a.title, Text: a.text, Interests: interests}); err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	b.ReportMetric(float64(n)/(cpuSeconds()-cpuStart), "items/cpu-s") // the machine may be shared
}

// BenchmarkEmbeddedLong enriches long articles (over 10,000 characters: the corpus's longest
// texts, and corpus texts joined up to 12,000 and 40,000 characters), the case that was slow when
// the summariser compared every sentence with every other.
func BenchmarkEmbeddedLong(b *testing.B) {
	arts := corpus(b)
	e := seeded(b, arts)
	var long []string
	var joined strings.Builder
	for _, a := range arts {
		if len(a.text) > 10_000 {
			long = append(long, a.text)
		}
		joined.WriteString(a.text + " ")
	}
	all := joined.String()
	for _, size := range []int{12_000, 40_000} {
		for off := 0; off+size < len(all) && off < 5*size; off += size {
			long = append(long, all[off:off+size])
		}
	}
	ctx := context.Background()
	interests := "the Go programming language and its toolchain\nopen source\nApple Mac hardware"
	b.ResetTimer()
	start := time.Now()
	cpuStart := cpuSeconds()
	n := 0
	for range b.N {
		for _, text := range long {
			if _, err := e.Enrich(ctx, app.EnrichInput{Title: "A long article", Text: text, Interests: interests}); err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "items/s")
	b.ReportMetric(float64(n)/(cpuSeconds()-cpuStart), "items/cpu-s") // the machine may be shared
}

// cpuSeconds is the CPU time this process has used, for speed figures that do not depend on
// what else the machine runs.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// BenchmarkEmbeddedScoreOpening scores items on their title and the opening of their text (a
// focus briefing's first pass, issue 13): the cost of preparing an item for the ranker.
func BenchmarkEmbeddedScoreOpening(b *testing.B) {
	arts := corpus(b)
	e := seeded(b, arts)
	b.ResetTimer()
	cpuStart := cpuSeconds()
	n := 0
	for range b.N {
		for _, a := range arts {
			text := a.text
			if len(text) > 1000 {
				text = text[:1000]
			}
			e.Score(app.EnrichInput{Title: a.title, Text: text, Interests: "the Go programming language\nopen source"})
			n++
		}
	}
	b.ReportMetric(1e6*(cpuSeconds()-cpuStart)/float64(n), "cpu-µs/item") // the machine may be shared
}

// benchImportInterests are the interests of ingestbench's measured reader (`-interests
// "sports;world news;technology;Go programming"`, BENCHMARKS.md).
const benchImportInterests = "sports\nworld news\ntechnology\nGo programming"

// BenchmarkEmbeddedImport enriches the corpus articles as first imports of 20 items (a source's
// first fetch) for a user with no interests and no topics, as a first ingestion scores them
// (issue 26): "full" with their texts, "short" with their first 300 bytes, as the descriptions
// of many feeds (and ingestbench's farm) are; "short-interests" as "short" for a reader with
// ingestbench's four interests.
func BenchmarkEmbeddedImport(b *testing.B) {
	arts := corpus(b)
	for _, bc := range []struct {
		name      string
		max       int
		interests string
	}{{"full", 0, ""}, {"short", 300, ""}, {"short-interests", 300, benchImportInterests}} {
		b.Run(bc.name, func(b *testing.B) {
			e := seeded(b, arts)
			ins := make([]app.EnrichInput, len(arts))
			for i, a := range arts {
				text := a.text
				if bc.max > 0 && len(text) > bc.max {
					text = text[:bc.max]
				}
				ins[i] = app.EnrichInput{Title: a.title, Text: text, PublishedAt: a.pub, Interests: bc.interests}
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			cpuStart := cpuSeconds()
			n := 0
			for range b.N {
				for i := 0; i < len(ins); i += 20 {
					batch := ins[i:min(i+20, len(ins))]
					if _, err := e.EnrichImport(ctx, batch, true); err != nil {
						b.Fatal(err)
					}
					n += len(batch)
				}
			}
			b.ReportMetric(float64(n)/(cpuSeconds()-cpuStart), "items/cpu-s") // the machine may be shared
		})
	}
}
