package enrich

import (
	"strings"
	"testing"
	"text/template"
)

// TestPromptTemplateAsTextTemplate: the prompt templates read the way Go's text/template reads
// them — the default prompt, fields, conditions with and without else, nested, the {{- -}} trim
// markers, comments — for fields empty and not (the differential check runs text/template itself
// in the test; the app does not link it).
func TestPromptTemplateAsTextTemplate(t *testing.T) {
	templates := []string{
		DefaultPrompt,
		"Judge {{.Title}} for {{.Interests}}: {{.Text}}",
		"{{if .Interests}}For {{.Interests}}{{end}}.",
		"A{{if .Topics}} topics: {{.Topics}}{{else}} no topics{{end}}\n{{if .Link}}{{if .Source}}{{.Source}}: {{end}}{{.Link}}{{else}}(no link){{end}}",
		"Title:   {{- .Title -}}   \n\n  Text {{- /* a comment */ -}}\n {{.Text}}",
		"{{/* only a comment */}}{{ .Published }}|{{- if .Title }} {{ .Title }} {{- else -}} none {{- end }}|",
		"no actions at all, { braces } alone",
		"a\u00a0{{- .Title}}\v\f{{.Text -}}\u2003 b",
		"{{-\t.Title\t-}}\n x {{-\n.Link\n-}} y {{if\n.Topics}}t{{end}}",
		"{{/* a }} b */}} c {{- /* d */ -}} e",
		"{{if .Title}}T{{else if .Text}}X{{else if .Link}}L{{else}}none{{end}}|{{if .Interests}}{{if .Topics}}a{{else if .Source}}b{{end}}{{end}}",
		"",
	}
	datas := []map[string]string{
		{"Title": "Go 1.26 released", "Source": "Go Blog", "Link": "https://go.dev/blog", "Published": "2026-02-10 18:00 UTC",
			"Interests": "Go programming", "Topics": "Technology, Science", "Text": "The release adds {{braces}} and \"quotes\" <b>."},
		{"Title": "", "Source": "", "Link": "", "Published": "unknown", "Interests": "", "Topics": "", "Text": ""},
	}
	for _, src := range templates {
		want := template.Must(template.New("p").Parse(src))
		got, err := parsePrompt(src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		for _, d := range datas {
			var w, g strings.Builder
			if err := want.Execute(&w, d); err != nil {
				t.Fatal(err)
			}
			got.execute(&g, d)
			if w.String() != g.String() {
				t.Errorf("%q with %v:\n got %q\nwant %q", src, d, g.String(), w.String())
			}
		}
	}
}

// TestPromptTemplateRefuses: what a prompt template cannot say is refused when it is parsed, and
// the message says what it can say; NewLLM then falls back to the default prompt.
func TestPromptTemplateRefuses(t *testing.T) {
	for src, want := range map[string]string{
		"{{.Title}":      "not closed",
		"{{.Author}}":    `".Author" is not a field`,
		"{{if .Title}}x": "not closed with {{end}}",
		"x{{end}}":       "{{end}} without an {{if}}",
		"{{else}}":       "{{else}} without",
		"{{if .Title}}a{{else}}b{{else}}c{{end}}": "{{else}} without",
		"{{range .Topics}}x{{end}}":               "{{range .Topics}} is not supported",
		"{{printf \"%s\" .Title}}":                "is not supported",
		"line\n\n{{.Nope}}":                       "line 3:",
	} {
		err := ParsePrompt(src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error saying %q", src, err, want)
		}
	}
	l := NewLLM(LLMOptions{Model: "m", PromptTemplate: "{{range .Topics}}{{end}}"})
	var b strings.Builder
	l.tmpl.execute(&b, map[string]string{"Title": "T", "Topics": "Tech"})
	if !strings.Contains(b.String(), "Title: T") || !strings.Contains(b.String(), "from this list: Tech") {
		t.Errorf("an invalid template did not fall back to the default: %q", b.String())
	}
}

// FuzzPromptTemplate: no template makes the parser or the prompt panic, and one that both
// text/template and this parser accept reads the same.
func FuzzPromptTemplate(f *testing.F) {
	for _, s := range []string{DefaultPrompt, "{{.Title}}", "{{if .Text}}a{{else}}b{{end}}", "{{- .Link -}}", "{{/* c */}}", "{{", "}}{{end}}", "{{if .Topics}}{{if .Title}}x{{end}}{{end}}", "a\u00a0{{- .Title -}}\v", "{{/* a }} */}}", "{{-\t.Link\n-}}", "{{if .Title}}a{{else if .Text}}b{{else}}c{{end}}"} {
		f.Add(s, "title", "")
		f.Add(s, "", "text")
	}
	f.Fuzz(func(t *testing.T, src, title, text string) {
		got, err := parsePrompt(src)
		if err != nil {
			return
		}
		data := map[string]string{"Title": title, "Text": text, "Source": "S", "Link": "", "Published": "unknown", "Interests": title + text, "Topics": ""}
		var g strings.Builder
		got.execute(&g, data)
		want, err := template.New("p").Parse(src)
		if err != nil {
			return // text/template refuses what this parser reads alone (never mind: a stricter reading is not ours to copy)
		}
		var w strings.Builder
		if err := want.Execute(&w, data); err != nil {
			return
		}
		if w.String() != g.String() {
			t.Errorf("%q: got %q, text/template %q", src, g.String(), w.String())
		}
	})
}
