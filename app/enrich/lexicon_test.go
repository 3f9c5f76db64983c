package enrich_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
)

// Interests match items in other languages through the concept lexicon, naming the word as the
// item wrote it and the user's; short words shared by languages with other meanings do not, nor do words of
// the same stem that mean something else.
func TestInterestsMatchAcrossLanguages(t *testing.T) {
	for _, tc := range []struct {
		name, interests, title, text string
		want                         bool
		reasonHas                    string
	}{
		{"English interest, German item", "broadband", "Netzausbau auf dem Land",
			"Die Regierung will den Breitband-Ausbau auf dem Land beschleunigen. Viele Dörfer haben noch kein schnelles Internet.", true, "Breitband (broadband)"},
		{"a German compound", "broadband", "Breitbandausbau: Grüne fordern mehr Tempo",
			"Die Grünen wollen die Netzbetreiber zum Ausbau zwingen und fordern einen Anspruch für alle Haushalte.", true, "Breitband (broadband)"},
		{"a phrase for a phrase", "AI and machine learning", "Forschung",
			"Die Forscher setzen maschinelles Lernen ein, um Fehler im Code zu finden.", true, "maschinelles Lernen (machine learning)"},
		{"an acronym's translation", "EU politics", "Vote", "Les pays de l'UE ont voté la nouvelle directive sur les données hier soir.", true, "UE (EU)"},
		{"German interest, English item", "Elektroautos und Tesla", "A cheaper ride",
			"The startup wants to sell its electric car for under 15,000 euros next year.", true, "electric car (Elektroautos)"},
		{"French item", "climate change", "Sommet",
			"Les dirigeants se réunissent pour parler du changement climatique et des émissions.", true, "changement climatique (climate change)"},
		{"the word as the item wrote it", "security vulnerabilities", "Router",
			"Verwundbare Router lassen sich aus der Ferne übernehmen, warnen Forscher.", true, "Verwundbare (security vulnerabilities)"},
		{"a vulnerability in Spanish", "security vulnerabilities", "Alerta",
			"Los investigadores encontraron una vulnerabilidad grave en el navegador y publicaron un parche.", true, "vulnerabilidad (security vulnerabilities)"},
		{"chat is not a French cat", "chat apps", "Unsere Katze",
			"Die Katze schläft den ganzen Tag auf dem Sofa, und der Hund bewacht das Haus.", false, ""},
		{"training is not a train", "AI training", "Bahnstreik",
			"Der Zug fiel aus, die Bahn entschuldigte sich bei den Fahrgästen für den Streik.", false, ""},
		{"a form the stemmer takes to a function word", "security", "Spiele",
			"Das Spiel öffnet sich mal wieder, und die Entwickler freuen sich auf November.", false, ""},
		{"that form still matches as written", "security", "Sicherheit im Netz",
			"Die Sicherheit der Router lässt zu wünschen übrig, sagen Forscher.", true, "Sicherheit (security)"},
		{"a name the user capitalised is not the common noun", "Ruby and Rails programming", "Bahnstrecke",
			"Die Bahn baut die Strecke zwischen den beiden Städten aus; neue Schienen und Züge folgen.", false, ""},
		{"a capitalised concept is one", "Ukraine and Germany", "Besuch",
			"Der Präsident besuchte Deutschland, um über Hilfe zu sprechen.", true, "Deutschland (Germany)"},
		{"a country named in another script", "Pakistan", "امریکی امداد",
			"امریکہ نے پاکستان کی فوجی امداد روک دی ہے اور حکام نے اس فیصلے پر تشویش ظاہر کی۔", true, "پاکستان (Pakistan)"},
		{"a country in Cyrillic", "Turkey and Greece", "Переговоры",
			"Президент Турции встретился с премьером; Турция и Греция обсудили границу.", true, "(Turkey)"},
		{"a country in Russian's cases", "Pakistan", "Переговоры",
			"Делегация прибыла в Исламабад; в Пакистане обсуждают помощь и торговлю.", true, "Пакистане (Pakistan)"},
		{"a Russian name quoted in a German item", "Turkey", "Presseschau",
			"Die Zeitung schreibt über die Beziehungen zu Турцией und die Gespräche in Ankara.", true, "(Turkey)"},
		{"a country's name that is a common word in lower case", "Togo", "Мнение",
			"Он того же мнения, что и министр: мало кто верит в перемены.", false, ""},
		{"a word of a longer name is not a country", "New Mexico", "Новости",
			"Президент Мексики посетил столицу; в Мексике обсуждают выборы.", false, ""},
		{"a lower-case word is not another language's country", "islands", "Путешествие",
			"Поездка в Исландию была долгой, но природа Исландии прекрасна.", false, ""},
		{"an interest in another script finds English items", "Пакистан", "Aid suspended",
			"The United States suspended security aid to Pakistan on Thursday.", true, "Pakistan (Пакистан)"},
		{"a country's name in another script is not its neighbour's", "Pakistan", "ایران",
			"ایران کے صدر نے افغانستان کا دورہ کیا اور تجارت پر بات کی۔", false, ""},
		{"a country's adjective is the country", "Indian economy and markets", "Growth slows",
			"India's economy grew 5.4 per cent in the quarter, the slowest pace in almost two years.", true, "(Indian)"},
		{"a country's other name", "Burma", "Election",
			"Myanmar's military government announced an election date on Monday.", true, "(Burma)"},
		{"a form the reader removed no longer counts", "Turkey (not: Türkei)", "Reisewarnung",
			"Das Auswärtige Amt warnt vor Reisen in die Türkei; dort wurde demonstriert.", false, ""},
		{"forms are looked for in their own language only", "broadband", "Rock band",
			"The band played a broad set of songs; the Breitband gallery hosted the party.", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why := matches(t, tc.interests, tc.title, tc.text)
			if got != tc.want {
				t.Fatalf("match %v, want %v (%s)", got, tc.want, why)
			}
			if tc.reasonHas != "" && !strings.Contains(why, tc.reasonHas) {
				t.Fatalf("reason %q does not name %q", why, tc.reasonHas)
			}
		})
	}
}

// A form of the lexicon counts a little less than the user's own word.
func TestTranslationsCountLessThanTheUsersWords(t *testing.T) {
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	in := app.EnrichInput{Title: "Breitband für alle", Text: "Die Regierung will Breitband für alle Haushalte bis 2025 gesetzlich verankern."}
	in.Interests = "Breitband"
	own, _ := e.Score(in)
	in.Interests = "broadband"
	other, why := e.Score(in)
	if !(own > other && other > 40) {
		t.Fatalf("own word %d, English interest %d (%s): the translation should count, a little less", own, other, why)
	}
}

// A form standing for two words the collection does not show as a phrase (so they count apart)
// stands for both: an English "electric cars" finds the German Elektroauto as a match, not a
// mention below items that say "car".
func TestTranslationOfAPhraseCountedApart(t *testing.T) {
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	for i := range 40 {
		e.Stats().Observe(fmt.Sprintf("An electric guitar, number %d, and its amplifier on stage.", i))
		e.Stats().Observe(fmt.Sprintf("The car repair shop fixed car number %d before noon.", i))
	}
	in := app.EnrichInput{Title: "Start-up baut faltbares Elektroauto", Interests: "electric cars",
		Text: "Das israelische Start-up zeigt ein faltbares Elektroauto, das in jede Parklücke passt."}
	score, why := e.Score(in)
	in.Title, in.Text = "At the garage", "The car would not start, so the car went to the garage."
	carScore, _ := e.Score(in)
	if !strings.Contains(why, "Matches your interests: Elektroauto (electric cars)") || score <= carScore {
		t.Fatalf("the German electric-car item scores %d (%s), an item about a car %d", score, why, carScore)
	}
}

// A topic's keywords find items in other languages too: a German item about a Sicherheitslücke
// is in the topic Security (keywords vulnerability, exploit), a German item about bread is not.
func TestTopicsMatchAcrossLanguages(t *testing.T) {
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	topics := []app.Topic{{Name: "Security", Keywords: []string{"vulnerability", "exploit"}}, {Name: "Cooking", Keywords: []string{"recipe", "soup"}}}
	res, err := e.Enrich(context.Background(), app.EnrichInput{Title: "Sicherheitslücke im Router",
		Text: "Eine Sicherheitslücke in der Firmware erlaubt Angreifern den Zugriff. Der Hersteller schließt die Sicherheitslücke mit einem Update.", Topics: topics})
	if err != nil || len(res.Topics) != 1 || res.Topics[0] != "Security" {
		t.Fatalf("topics %v, %v", res.Topics, err)
	}
	res, _ = e.Enrich(context.Background(), app.EnrichInput{Title: "Brot backen",
		Text: "Der Sauerteig braucht Mehl, Wasser und Geduld; die Krume zeigt die Gärung.", Topics: topics})
	if len(res.Topics) != 0 {
		t.Fatalf("a bread item got topics %v", res.Topics)
	}
}
