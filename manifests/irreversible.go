package manifests

import (
	"fmt"
	"slices"
	"strconv"
)

// irreversibleVerbs lists every recognised form of an irreversible verb,
// verb by verb. Only verb forms are listed: agent nouns such as "sender",
// "publisher" or "payment" are not, and neither are words that merely
// contain a verb ("postgres", "dropdown", "removable").
var irreversibleVerbs = [][]string{
	{"send", "sends", "sent", "sending"},
	{"delete", "deletes", "deleted", "deleting"},
	{"remove", "removes", "removed", "removing"},
	{"rm"},
	{"pay", "pays", "paid", "paying"},
	{"post", "posts", "posted", "posting"},
	{"publish", "publishes", "published", "publishing"},
	{"transfer", "transfers", "transferred", "transferring"},
	{"purge", "purges", "purged", "purging"},
	{"destroy", "destroys", "destroyed", "destroying"},
	{"revoke", "revokes", "revoked", "revoking"},
	{"drop", "drops", "dropped", "dropping"},
	{"wipe", "wipes", "wiped", "wiping"},
	{"erase", "erases", "erased", "erasing"},
	{"truncate", "truncates", "truncated", "truncating"},
	{"kill", "kills", "killed", "killing"},
	{"terminate", "terminates", "terminated", "terminating"},
	{"charge", "charges", "charged", "charging"},
	{"refund", "refunds", "refunded", "refunding"},
	{"withdraw", "withdraws", "withdrew", "withdrawn", "withdrawing"},
	{"overwrite", "overwrites", "overwrote", "overwritten", "overwriting"},
	{"submit", "submits", "submitted", "submitting"},
	{"broadcast", "broadcasts", "broadcasted", "broadcasting"},
	{"shred", "shreds", "shredded", "shredding"},
	{"reply", "replies", "replied", "replying"},
	{"tweet", "tweets", "tweeted", "tweeting"},
}

// isIrreversibleVerb reports whether w is a form of an irreversible verb.
func isIrreversibleVerb(w string) bool {
	for _, forms := range irreversibleVerbs {
		if slices.Contains(forms, w) {
			return true
		}
	}
	return false
}

// irreversiblePhrases are two-word names that are irreversible together
// though neither word is on its own: the first word's forms, then the
// second's.
var irreversiblePhrases = [][2][]string{
	{{"issue", "issues", "issued", "issuing"}, {"invoice", "invoices"}},
	{{"force", "forces", "forced", "forcing"}, {"push", "pushes", "pushed", "pushing"}},
}

// IrreversibleWord reports whether a whole word of name is an irreversible
// verb or one of its inflections — send, sends, sent, sending; delete,
// remove, pay, post, publish, transfer, purge, destroy, revoke, drop, wipe,
// erase, truncate, kill, terminate, charge, refund, withdraw, overwrite,
// submit, broadcast, shred, reply, tweet and their forms — or a pair of
// adjacent words is an irreversible phrase ("issue-invoice", "force-push").
// It returns the matching word (or the two words joined by '-') as written
// in name, lowercased.
//
// Words are split on '-', '_', any other non-alphanumeric character and
// camelCase boundaries, and compared case-insensitively. Matching is by
// whole word only: "postgres", "dropdown" and "sender-info" do not match
// ("sender" is a noun, not a form of "send"), while "list-posts" and
// "sent-items" do — the rule judges names, never meanings, and fails closed.
//
// This is the naming half of the irreversible rule (the other half is the
// manifest's reversible flag, see Manifest.Irreversible); Parse rejects a
// manifest that declares such an action reversible or read-only.
func IrreversibleWord(name string) (word string, ok bool) {
	ws := words(name, false)
	for i, w := range ws {
		if i+1 < len(ws) {
			for _, p := range irreversiblePhrases {
				if slices.Contains(p[0], w) && slices.Contains(p[1], ws[i+1]) {
					return w + "-" + ws[i+1], true
				}
			}
		}
		if isIrreversibleVerb(w) {
			return w, true
		}
	}
	return "", false
}

// isIrreversibleName is IrreversibleWord on the tool name, then the action
// name; it returns the word and which name held it.
func isIrreversibleName(tool, action string) (word, in string, ok bool) {
	if w, ok := IrreversibleWord(tool); ok {
		return w, "tool name " + strconv.Quote(tool), true
	}
	if w, ok := IrreversibleWord(action); ok {
		return w, "action name " + strconv.Quote(action), true
	}
	return "", "", false
}

// Irreversible is the whole irreversible rule, the one the host's gate
// applies: action a of m is irreversible when a whole word of the tool or
// the action name is an irreversible verb (IrreversibleWord), or its
// manifest does not declare it reversible: true. why says which, for the
// person asked to approve.
func (m *Manifest) Irreversible(a *Action) (irreversible bool, why string) {
	if w, in, ok := isIrreversibleName(m.Name, a.Name); ok {
		return true, fmt.Sprintf("the %s contains the irreversible verb %q", in, w)
	}
	if !a.Reversible {
		return true, fmt.Sprintf("%s %s is not declared reversible in its manifest", m.Name, a.Name)
	}
	return false, ""
}
