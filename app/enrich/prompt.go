package enrich

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// PromptFields are the fields a prompt template may name (DefaultPrompt says what each holds).
var PromptFields = []string{"Title", "Source", "Link", "Published", "Interests", "Topics", "Text"}

// promptTemplate is a parsed prompt: the part of Go's text/template syntax a prompt over these
// string fields needs — {{.Field}}, {{if .Field}}…{{else if .Other}}…{{else}}…{{end}} (a field
// is true when not empty), {{/* comments */}} and the {{- -}} markers that trim the spaces beside an action —
// with text/template's meaning. It is not text/template itself: executing any text/template
// makes reflect's MethodByName reachable, and the linker then keeps every exported method of
// the program, used or not (about 3 MB of the binary and 2 MB of resident memory; BENCHMARKS.md,
// session 22). Anything else in braces is refused when the template is parsed, with the reason.
type promptTemplate struct{ nodes []promptNode }

// promptNode is literal text, a field, or a condition on a field with its two branches.
type promptNode struct {
	text, field string
	cond        bool
	then, els   []promptNode
}

// ParsePrompt checks a prompt template (LLMOptions.PromptTemplate): nil when NewLLM will use it.
func ParsePrompt(s string) error {
	_, err := parsePrompt(s)
	return err
}

func parsePrompt(s string) (*promptTemplate, error) {
	type frame struct {
		node    *promptNode
		inElse  bool
		chained bool // opened by {{else if}}: the {{end}} of its first {{if}} closes it too
	}
	var root []promptNode
	var stack []frame
	add := func(n promptNode) {
		if len(stack) == 0 {
			root = append(root, n)
			return
		}
		f := &stack[len(stack)-1]
		if f.inElse {
			f.node.els = append(f.node.els, n)
		} else {
			f.node.then = append(f.node.then, n)
		}
	}
	trimNext := false
	line := 1
	for s != "" {
		i := strings.Index(s, "{{")
		if i < 0 {
			i = len(s)
		}
		text := s[:i]
		if trimNext {
			text = strings.TrimLeft(text, promptSpaces)
		}
		trimNext = false
		if i == len(s) {
			if text != "" {
				add(promptNode{text: text})
			}
			break
		}
		line += strings.Count(s[:i], "\n") // the action's first line, for its errors
		body := s[i+2:]
		if len(body) >= 2 && body[0] == '-' && strings.IndexByte(promptSpaces, body[1]) >= 0 {
			text = strings.TrimRight(text, promptSpaces)
			body = body[2:]
		}
		var action string
		comment := strings.HasPrefix(body, "/*")
		if comment {
			// A comment, as text/template reads one: right after the delimiter (or its marker),
			// to the first "*/", then the closing delimiter.
			end := strings.Index(body, "*/")
			if end < 0 {
				return nil, fmt.Errorf("line %d: a comment opened with /* is not closed with */", line)
			}
			after := body[end+2:]
			switch {
			case strings.HasPrefix(after, "}}"):
				s = after[2:]
			case len(after) >= 4 && strings.IndexByte(promptSpaces, after[0]) >= 0 && after[1:4] == "-}}":
				trimNext = true
				s = after[4:]
			default:
				return nil, fmt.Errorf("line %d: a comment must end with */}}", line)
			}
			action = body[:end+2]
		} else {
			end := strings.Index(body, "}}")
			if end < 0 {
				return nil, fmt.Errorf("line %d: an action opened with {{ is not closed with }}", line)
			}
			action = body[:end]
			s = body[end+2:]
			if n := len(action); n >= 2 && action[n-1] == '-' && strings.IndexByte(promptSpaces, action[n-2]) >= 0 {
				trimNext = true
				action = action[:n-2]
			}
		}
		if text != "" {
			add(promptNode{text: text})
		}
		actionLines := strings.Count(action, "\n") // counted after it: its errors name its first line
		action = strings.TrimSpace(action)
		if f := strings.Fields(action); len(f) == 2 && f[0] == "if" {
			action = "if " + f[1]
		} else if len(f) == 3 && f[0] == "else" && f[1] == "if" {
			action = "else if " + f[2]
		}
		switch {
		case comment:
		case strings.HasPrefix(action, "."):
			f, err := promptField(action, line)
			if err != nil {
				return nil, err
			}
			add(promptNode{field: f})
		case strings.HasPrefix(action, "if "), strings.HasPrefix(action, "else if "):
			chained := strings.HasPrefix(action, "else ")
			if chained {
				// {{else if .B}} is {{else}}{{if .B}}, closed by the one {{end}}.
				if len(stack) == 0 || stack[len(stack)-1].inElse {
					return nil, fmt.Errorf("line %d: {{else if}} without an {{if}} before it", line)
				}
				stack[len(stack)-1].inElse = true
				action = strings.TrimPrefix(action, "else ")
			}
			f, err := promptField(strings.TrimSpace(action[3:]), line)
			if err != nil {
				return nil, err
			}
			add(promptNode{cond: true, field: f})
			var last *promptNode
			if len(stack) == 0 {
				last = &root[len(root)-1]
			} else if p := &stack[len(stack)-1]; p.inElse {
				last = &p.node.els[len(p.node.els)-1]
			} else {
				last = &p.node.then[len(p.node.then)-1]
			}
			stack = append(stack, frame{node: last, chained: chained})
		case action == "else":
			if len(stack) == 0 || stack[len(stack)-1].inElse {
				return nil, fmt.Errorf("line %d: {{else}} without an {{if}} before it", line)
			}
			stack[len(stack)-1].inElse = true
		case action == "end":
			if len(stack) == 0 {
				return nil, fmt.Errorf("line %d: {{end}} without an {{if}} before it", line)
			}
			for len(stack) > 0 {
				f := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if !f.chained {
					break
				}
			}
		default:
			return nil, fmt.Errorf("line %d: {{%s}} is not supported: a prompt template has {{.Field}}, {{if .Field}}…{{else if .Field}}…{{else}}…{{end}} and {{/* comments */}}, the fields being .%s",
				line, strings.Join(strings.Fields(action), " "), strings.Join(PromptFields, ", ."))
		}
		line += actionLines
	}
	if len(stack) > 0 {
		return nil, errors.New("an {{if}} is not closed with {{end}}")
	}
	return &promptTemplate{nodes: root}, nil
}

// promptSpaces are the spaces text/template's trim markers take and trim.
const promptSpaces = " \t\r\n"

// promptField is the field an action names (".Title"), or an error saying which fields there are.
func promptField(action string, line int) (string, error) {
	name, ok := strings.CutPrefix(action, ".")
	if !ok || !slices.Contains(PromptFields, name) {
		return "", fmt.Errorf("line %d: %q is not a field of the prompt: the fields are .%s", line, action, strings.Join(PromptFields, ", ."))
	}
	return name, nil
}

// execute writes the prompt for these field values.
func (t *promptTemplate) execute(b *strings.Builder, data map[string]string) {
	var run func(ns []promptNode)
	run = func(ns []promptNode) {
		for _, n := range ns {
			switch {
			case n.cond && data[n.field] != "":
				run(n.then)
			case n.cond:
				run(n.els)
			case n.field != "":
				b.WriteString(data[n.field])
			default:
				b.WriteString(n.text)
			}
		}
	}
	run(t.nodes)
}
