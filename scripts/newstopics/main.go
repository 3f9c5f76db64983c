// Command newstopics learns the embedded enricher's news-topic model: a multinomial naive
// Bayes model of the sections of general news — business (b), entertainment (e), health (m),
// technology (t), and US politics (p), world (w), sports (s), crime (c), religion (r), the news
// media (d), comedy (y), style (f), parenting (k), wellness (l), food (v), the environment (x)
// and science (z) — from the UCI News Aggregator data set (Gasparetti, 2016; CC BY 4.0).
//
// The data set labels four topics only. The others are learned by distant supervision: a
// headline that names one section's seed words (sectionSeeds: "Senate", "Kremlin", "NBA",
// "murder", "Vatican", "CNN"; written before any evaluation of the model, never tuned) and no
// other section's is a headline of that section; every word of it — the names, the other
// words — is then learned for the section, so that the model reads "LeBron" as sports and
// "Donetsk" as world without the seeds. A headline naming two sections' seeds equally keeps
// its data-set label.
//
// It reads one month only (May 2014, by default): the evaluations' development headlines are
// of March–April and their held-out ones of June–August, so neither is learned from. It writes
// app/enrich/newstopics.tsv.gz: each section's seeds ("#seeds" lines), which the app reads
// items against through the word vectors; the class priors ("#prior"); then each word seen at
// least -min times with its log-probability in each section (Laplace smoothing, or Dirichlet
// with -mu), in hundredths. Deterministic.
//
//	go run ./scripts/newstopics -in PATH/uci-news.tsv.gz -out app/enrich/newstopics.tsv.gz
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/morningdeck/morningdeck/app/enrich"
)

var classes = []string{"b", "e", "m", "t", "p", "w", "s", "c", "r", "d",
	"y", "f", "k", "l", "v", "x", "z"}

// sectionSeeds are the words and phrases (NewsWords, space-separated) that name a section the
// data set does not label, by class. Country names stand for world news; "election" and
// "minister" are not seeds (both US and foreign).
var sectionSeeds = map[string][]string{
	"p": {"obama", "congress", "congressional", "senate", "senator", "senators", "republicans",
		"republican", "democrats", "gop", "white house", "lawmakers", "supreme court", "governor",
		"midterm", "midterms", "boehner", "mcconnell", "harry reid", "house speaker", "obamacare",
		"tea party", "capitol hill", "politics", "political"},
	"w": {"ukraine", "russia", "putin", "kremlin", "crimea", "kiev", "moscow", "china", "beijing",
		"india", "iraq", "syria", "iran", "israel", "gaza", "palestinian", "palestinians",
		"egypt", "afghanistan", "pakistan", "nigeria", "thailand", "venezuela", "north korea",
		"libya", "yemen", "somalia", "sudan", "turkey", "nato", "united nations", "taliban",
		"boko haram", "militants", "rebels", "separatists", "ceasefire", "coup", "refugees",
		"foreign minister", "prime minister", "parliament", "embassy", "diplomats"},
	"s": {"sports", "sport", "nba", "nfl", "nhl", "mlb", "fifa", "world cup", "olympics",
		"olympic", "baseball", "basketball", "football", "soccer", "tennis", "golf", "hockey",
		"quarterback", "pitcher", "playoffs", "playoff", "super bowl", "stanley cup", "wimbledon",
		"nascar", "athlete", "athletes", "boxing", "marathon"},
	"c": {"crime", "crimes", "criminal", "murder", "murdered", "arrested", "arrest", "police",
		"sentenced", "prison", "jail", "jailed", "convicted", "guilty", "shooting", "robbery",
		"stabbing", "homicide", "prosecutors", "prosecutor", "indicted", "manslaughter",
		"kidnapping", "kidnapped"},
	"r": {"religion", "religious", "pope", "vatican", "church", "churches", "catholic",
		"catholics", "christian", "christians", "christianity", "muslim", "muslims", "islam",
		"islamic", "jewish", "jews", "rabbi", "bishop", "archbishop", "mormon", "mosque",
		"clergy", "priest", "priests", "bible", "pastor", "evangelical", "sainthood"},
	// Sections within the data set's topics: comedy (y) and style (f) of entertainment,
	// parenting (k), wellness (l) and food (v) of health, the environment (x) and science (z)
	// of science and technology. Words that often mean something else ("galaxy" a phone,
	// "mars" a singer, "hair loss", "baby" a celebrity's) are not seeds.
	"y": {"comedy", "comedian", "comedians", "comedic", "snl", "saturday night live",
		"late night", "satire", "satirical", "stand up", "parody", "spoof"},
	"f": {"fashion", "beauty", "makeup", "dress", "dresses", "gown", "outfit", "outfits",
		"hairstyle", "red carpet", "vogue", "runway", "fashion week", "lipstick", "manicure",
		"wardrobe", "jewelry", "cosmetics"},
	"k": {"parenting", "parents", "parent", "mom", "moms", "dad", "dads", "toddler",
		"toddlers", "pregnancy", "breastfeeding", "newborn", "daycare", "preschool"},
	"l": {"wellness", "fitness", "exercise", "workout", "diet", "dieting", "weight loss",
		"sleep", "yoga", "meditation", "nutrition", "calories", "mindfulness"},
	"v": {"food", "foods", "recipe", "recipes", "restaurant", "restaurants", "chef", "chefs",
		"cooking", "pizza", "burger", "coffee", "beer", "wine", "cocktail", "chocolate",
		"cheese", "bakery", "dessert", "meal", "meals", "kitchen"},
	"x": {"environmental", "climate", "global warming", "pollution", "emissions", "carbon",
		"epa", "wildlife", "endangered", "conservation", "deforestation", "renewable",
		"recycling", "drought", "extinction"},
	"z": {"science", "scientists", "scientist", "nasa", "astronomers", "telescope", "asteroid",
		"comet", "archaeologists", "fossil", "fossils", "dinosaur", "dinosaurs", "physics",
		"genome", "astronaut", "astronauts", "space station", "big bang"},
	"d": {"journalism", "journalist", "journalists", "newspaper", "newspapers", "reporter",
		"reporters", "news anchor", "anchor", "cnn", "msnbc", "fox news", "new york times",
		"washington post", "pulitzer", "broadcaster", "tabloid", "press freedom", "editor"},
}

// seeded is the section whose seeds a headline's words name most, or -1 for none or a tie.
func seeded(words []string) int {
	best, bestN, tie := -1, 0, false
	for k, c := range classes {
		n := 0
		for _, seed := range sectionSeeds[c] {
			sw := strings.Fields(seed)
			for i := 0; i+len(sw) <= len(words); i++ {
				match := true
				for j := range sw {
					if words[i+j] != sw[j] {
						match = false
						break
					}
				}
				if match {
					n++
				}
			}
		}
		switch {
		case n > bestN:
			best, bestN, tie = k, n, false
		case n == bestN && n > 0:
			tie = true
		}
	}
	if tie {
		return -1
	}
	return best
}

func main() {
	in := flag.String("in", "", "the UCI headlines (uci-news.tsv.gz)")
	out := flag.String("out", "app/enrich/newstopics.tsv.gz", "where to write the model")
	month := flag.String("month", "2014-05", "the months learned from (YYYY-MM, comma-separated)")
	exclude := flag.String("exclude", "testdata/corpus/topics/uci-sample.tsv", "a TSV whose story ids (4th column) are never learned from")
	minCount := flag.Int("min", 3, "least count of a word kept")
	mu := flag.Float64("mu", 0, "Dirichlet smoothing toward the words' overall frequencies, in words (0: Laplace smoothing)")
	flag.Parse()
	f, err := os.Open(*in)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		log.Fatal(err)
	}
	const nc = 17
	skip := map[string]bool{}
	if *exclude != "" {
		b, err := os.ReadFile(*exclude)
		if err != nil {
			log.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if c := strings.Split(l, "\t"); len(c) >= 4 {
				skip[c[3]] = true
			}
		}
	}
	months := strings.Split(*month, ",")
	inMonths := func(date string) bool {
		for _, m := range months {
			if strings.HasPrefix(date, m) {
				return true
			}
		}
		return false
	}
	counts := map[string]*[nc]float64{}
	var docs, totals [nc]float64
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 6 || !inMonths(c[0]) || skip[c[3]] {
			continue
		}
		k := strings.Index("bemt", c[2])
		if k < 0 || len(c[2]) != 1 {
			continue
		}
		words := enrich.NewsWords(c[5])
		if s := seeded(words); s >= 0 {
			k = s
		}
		n++
		docs[k]++
		seen := map[string]bool{}
		for _, w := range words {
			if seen[w] { // a word counts once a headline (Bernoulli-like counts resist repetition)
				continue
			}
			seen[w] = true
			x := counts[w]
			if x == nil {
				x = &[nc]float64{}
				counts[w] = x
			}
			x[k]++
			totals[k]++
		}
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
	var words []string
	for w, x := range counts {
		var sum float64
		for _, c := range x {
			sum += c
		}
		if sum >= float64(*minCount) {
			words = append(words, w)
		}
	}
	sort.Strings(words)
	o, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(o, gzip.BestCompression)
	bw := bufio.NewWriter(zw)
	v := float64(len(words))
	// The words' overall frequencies, for Dirichlet smoothing: a word a section never had is as
	// likely in it as anywhere, where Laplace smoothing makes it likelier in a small section
	// than in a large one (and short headlines of rare words the small sections' own).
	var all float64
	for _, w := range words {
		for _, c := range counts[w] {
			all += c
		}
	}
	background := func(w string) float64 {
		var n float64
		for _, c := range counts[w] {
			n += c
		}
		return (n + 1) / (all + v)
	}
	// Each section's seeds, which describe it: the app reads an item's words against them
	// through the word vectors too, for an interest that names the section (an item of words
	// the headlines never had: "yankees", "linebacker", "mascara").
	for _, c := range classes {
		if seeds := sectionSeeds[c]; len(seeds) > 0 {
			fmt.Fprintf(bw, "#seeds\t%s\t%s\n", c, strings.Join(seeds, ","))
		}
	}
	fmt.Fprintf(bw, "#prior")
	for k := range classes {
		fmt.Fprintf(bw, "\t%d", int(math.Round(100*math.Log(docs[k]/float64(n)))))
	}
	fmt.Fprintln(bw)
	for _, w := range words {
		x := counts[w]
		bw.WriteString(w)
		for k := range classes {
			p := (x[k] + 1) / (totals[k] + v)
			if *mu > 0 {
				p = (x[k] + *mu*background(w)) / (totals[k] + *mu)
			}
			fmt.Fprintf(bw, "\t%d", int(math.Round(100*math.Log(p))))
		}
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := o.Close(); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d headlines of %s, %d words kept (seen %d times or more); headlines per class %v of %v", n, *month, len(words), *minCount, docs, classes)
}
