package usagegen

import (
	"fmt"
	"path/filepath"
	"time"
)

type codexTotals struct{ in, cached, out, reasoning int64 }

func (c codexTotals) json() string {
	return fmt.Sprintf(`{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":%d,"total_tokens":%d}`,
		c.in, c.cached, c.out, c.reasoning, c.in+c.out)
}

const rateLimits = `"rate_limits":{"primary":{"used_percent":12.0,"window_minutes":300,"resets_in_seconds":6000},"secondary":{"used_percent":3.0,"window_minutes":10080,"resets_in_seconds":500000}}`

// codexSession writes one Codex CLI rollout file.
func (g *gen) codexSession(date time.Time, n int) error {
	proj := g.projects[g.rng.IntN(len(g.projects))]
	t := date.Add(time.Duration(1+g.rng.IntN(19))*time.Hour + time.Duration(g.rng.IntN(3600))*time.Second)
	id := g.uuid()
	name := fmt.Sprintf("rollout-%s-%s.jsonl", t.Format("2006-01-02T15-04-05"), id)
	path := filepath.Join(g.root, "codex", "sessions", t.Format("2006"), t.Format("01"), t.Format("02"), name)
	if g.rng.IntN(5) == 0 {
		path = filepath.Join(g.root, "codex", "archived_sessions", name)
	}
	fw, err := create(path)
	if err != nil {
		return err
	}
	tick := func(max int) string {
		t = t.Add(time.Duration(1+g.rng.IntN(max)) * time.Second)
		return ts(t)
	}
	fw.line(fmt.Appendf(nil, `{"timestamp":"%s","type":"session_meta","payload":{"id":"%s","timestamp":"%s","cwd":"%s","originator":"codex_cli_rs","cli_version":"0.46.0","instructions":null,"git":{"branch":"main"}}}`,
		tick(2), id, ts(t), proj))
	fw.line(fmt.Appendf(nil, `{"timestamp":"%s","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>%s</environment_context>"}]}}`,
		tick(2), g.content(300)))
	model := codexModels[g.rng.IntN(len(codexModels))]
	var total codexTotals
	var history []string
	turns := 1 + g.rng.IntN(2*g.cfg.TurnsPerSession)
	for i := 0; i < turns; i++ {
		if i > 0 && g.rng.IntN(6) == 0 {
			model = codexModels[g.rng.IntN(len(codexModels))]
		}
		fw.line(fmt.Appendf(nil, `{"timestamp":"%s","type":"turn_context","payload":{"cwd":"%s","approval_policy":"on-request","sandbox_policy":{"mode":"workspace-write"},"model":"%s","effort":"medium","summary":"auto"}}`,
			tick(3), proj, model))
		fw.line(fmt.Appendf(nil, `{"timestamp":"%s","type":"event_msg","payload":{"type":"user_message","message":"%s","kind":"plain"}}`, tick(30), g.content(200)))
		if i == 0 {
			fw.line(fmt.Appendf(nil, `{"timestamp":"%s","type":"event_msg","payload":{"type":"token_count","info":null,%s}}`, tick(2), rateLimits))
		}
		for r := 0; r < 1+g.rng.IntN(5); r++ {
			fw.line(fmt.Appendf(nil, `{"timestamp":"%s","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"%s"}],"encrypted_content":"gAAA%x"}}`,
				tick(10), g.content(200), g.rng.Uint64()))
			fw.line(fmt.Appendf(nil, `{"timestamp":"%s","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"]}","call_id":"call_%x"}}`,
				tick(5), g.rng.Uint64()))
			fw.line(fmt.Appendf(nil, `{"timestamp":"%s","type":"response_item","payload":{"type":"function_call_output","call_id":"call_x","output":"%s"}}`,
				tick(5), g.content(g.cfg.ContentBytes)))
			// One request: cached input is part of input_tokens.
			cached := int64(g.rng.IntN(60000))
			last := codexTotals{in: cached + int64(500+g.rng.IntN(9000)), cached: cached,
				reasoning: int64(g.rng.IntN(800))}
			last.out = last.reasoning + int64(30+g.rng.IntN(1500))
			total.in += last.in
			total.cached += last.cached
			total.out += last.out
			total.reasoning += last.reasoning
			at := tick(5)
			var line string
			if g.rng.IntN(6) == 0 {
				// An older CLI: cumulative totals only.
				line = fmt.Sprintf(`{"timestamp":"%s","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":%s,"model_context_window":272000},%s}}`,
					at, total.json(), rateLimits)
			} else {
				line = fmt.Sprintf(`{"timestamp":"%s","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":%s,"last_token_usage":%s,"model_context_window":272000},%s}}`,
					at, total.json(), last.json(), rateLimits)
			}
			fw.line([]byte(line))
			history = append(history, line)
			tm, _ := time.Parse("2006-01-02T15:04:05.000Z", at)
			u := usage{in: last.in - last.cached, cr: last.cached, out: last.out}
			g.codex.add(tm, model, u)
			g.all.add(tm, model, u)
			// Re-emitted unchanged totals.
			if g.rng.IntN(4) == 0 {
				fw.line([]byte(line))
			}
		}
		// A replayed burst of earlier events (older cumulative totals).
		if len(history) > 3 && g.rng.IntN(5) == 0 {
			k := g.rng.IntN(len(history) - 2)
			for _, l := range history[k : k+2] {
				fw.line([]byte(l))
			}
		}
		fw.line(fmt.Appendf(nil, `{"timestamp":"%s","type":"event_msg","payload":{"type":"agent_message","message":"%s"}}`, tick(3), g.content(300)))
	}
	g.codexBytes += fw.n
	return fw.close()
}
