// Command newstopics learns the embedded enricher's news-topic model: a multinomial naive
// Bayes model of four coarse topics of news headlines — business (b), entertainment (e),
// health (m), science and technology (t) — from the UCI News Aggregator data set (Gasparetti,
// 2016; CC BY 4.0). It reads one month only (May 2014, by default): the broad-interest
// evaluation's development headlines are of March–April and its held-out ones of June–August,
// so neither is learned from. It writes app/enrich/newstopics.tsv.gz: the class priors on the
// first line, then each word seen at least -min times with its log-probability in each topic
// (Laplace smoothing), in hundredths. Deterministic.
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

var classes = []string{"b", "e", "m", "t"}

func main() {
	in := flag.String("in", "", "the UCI headlines (uci-news.tsv.gz)")
	out := flag.String("out", "app/enrich/newstopics.tsv.gz", "where to write the model")
	month := flag.String("month", "2014-05", "the month learned from (YYYY-MM)")
	minCount := flag.Int("min", 3, "least count of a word kept")
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
	counts := map[string]*[4]float64{}
	var docs, totals [4]float64
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 6 || !strings.HasPrefix(c[0], *month) {
			continue
		}
		k := strings.Index("bemt", c[2])
		if k < 0 || len(c[2]) != 1 {
			continue
		}
		n++
		docs[k]++
		seen := map[string]bool{}
		for _, w := range enrich.NewsWords(c[5]) {
			if seen[w] { // a word counts once a headline (Bernoulli-like counts resist repetition)
				continue
			}
			seen[w] = true
			x := counts[w]
			if x == nil {
				x = &[4]float64{}
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
		if x[0]+x[1]+x[2]+x[3] >= float64(*minCount) {
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
	fmt.Fprintf(bw, "#prior")
	for k := range classes {
		fmt.Fprintf(bw, "\t%d", int(math.Round(100*math.Log(docs[k]/float64(n)))))
	}
	fmt.Fprintln(bw)
	for _, w := range words {
		x := counts[w]
		bw.WriteString(w)
		for k := range classes {
			fmt.Fprintf(bw, "\t%d", int(math.Round(100*math.Log((x[k]+1)/(totals[k]+v)))))
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
	log.Printf("%d headlines of %s, %d words kept (seen %d times or more)", n, *month, len(words), *minCount)
}
