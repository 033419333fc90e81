package autopilot

import (
	"regexp"
	"strings"
)

// The autopilot understands one thing in advice: whether the person wants the ore for
// contracts mined or bought. It reads that the right way round through negations ("don't
// mine", "no more buying"), comparisons ("buy over mining", "mine instead of buying",
// "buy rather than mine", "mining is slower than buying") and verdicts ("mining is a
// waste, buy"); when the advice speaks of both and it cannot tell which way, it says so
// and changes nothing rather than guess.

// adviceReading is what the autopilot made of one piece of advice.
type adviceReading struct {
	mine    bool // prefer mining (true) or buying (false); meaningful only when ok
	ok      bool // a preference was found
	unclear bool // the advice speaks of mining or buying, but which way could not be told
}

// preference reads a preference for mining (true) or buying (false) out of advice. ok is
// false when the advice says nothing about either, and when it cannot be told which way
// it goes: then nothing should change.
func preference(advice string) (mine, ok bool) {
	r := readAdvice(advice)
	return r.mine, r.ok
}

// says words the reading for the person, in the reply of the step that got the advice.
func (r adviceReading) says() string {
	switch {
	case r.ok && r.mine:
		return "I read it as: prefer mining to buying"
	case r.ok:
		return "I read it as: prefer buying to mining"
	case r.unclear:
		return "I cannot tell from it whether you want me to mine or to buy, so I changed nothing (say e.g. \"prefer mining\" or \"don't buy\")"
	}
	return "I found no preference for mining or buying in it"
}

var (
	// adviceTokenRe splits advice into words (with their apostrophes) and the
	// punctuation that ends a clause.
	adviceTokenRe = regexp.MustCompile(`[a-z]+(?:'[a-z]+)?|[,;.!?:()]|--?|[–—]`)

	mineWords = wordSet("mine", "mining", "mined", "extract", "extracting", "extraction", "drill", "drilling")
	buyWords  = wordSet("buy", "buying", "bought", "purchase", "purchasing", "purchased")

	// negations turn the next action around: "don't mine" prefers buying.
	negations = wordSet("not", "no", "never", "don't", "dont", "doesn't", "doesnt", "isn't", "isnt",
		"won't", "wont", "can't", "cant", "cannot", "shouldn't", "shouldnt", "mustn't", "nor",
		"stop", "quit", "avoid", "without", "skip", "cease", "enough", "less", "fewer", "forget", "halt")
	// clauseBreaks end the reach of a negation, a comparison or a verdict. "or" is not
	// one: "don't mine or buy" negates both.
	clauseBreaks = wordSet(",", ";", ".", "!", "?", ":", "(", ")", "-", "--", "–", "—",
		"and", "but", "then", "so", "because", "while", "whereas", "though", "although",
		"otherwise", "else", "instead", "if", "unless", "when", "whenever")
	// adviceWorse and adviceBetter are verdicts on an action in the same clause ("mining is a waste",
	// "too expensive to buy", "buying is cheaper").
	adviceWorse = wordSet("waste", "wasteful", "pointless", "useless", "slow", "slower", "expensive", "dear",
		"dearer", "costly", "pricey", "adviceWorse", "inefficient", "bad", "stupid", "silly", "dumb",
		"risky", "unprofitable", "overpriced", "longer")
	adviceBetter = wordSet("adviceBetter", "cheaper", "cheap", "faster", "quicker", "best", "good", "great",
		"profitable", "worth", "efficient", "smarter")
)

// worseAt is true when toks[k] judges an action worse: a worse word, or "more" after
// "costs" ("buying costs more than mining").
func worseAt(toks []string, k int) bool {
	return adviceWorse[toks[k]] || toks[k] == "more" && k > 0 && strings.HasPrefix(toks[k-1], "cost")
}

func wordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// readAdvice finds each mention of mining or buying and whether the advice is for it or
// against it; being against one is being for the other. The side with more for it wins;
// a tie is unclear.
func readAdvice(advice string) adviceReading {
	advice = strings.NewReplacer("’", "'", "‘", "'").Replace(strings.ToLower(advice))
	toks := adviceTokenRe.FindAllString(advice, -1)
	var forMine, forBuy, mentions int
	for i, w := range toks {
		isMine, isBuy := mineWords[w], buyWords[w]
		if !isMine && !isBuy {
			continue
		}
		mentions++
		if adviceStance(toks, i) == isMine {
			forMine++
		} else {
			forBuy++
		}
	}
	switch {
	case mentions == 0:
		return adviceReading{}
	case forMine == forBuy:
		return adviceReading{unclear: true}
	}
	return adviceReading{mine: forMine > forBuy, ok: true}
}

func isAdviceAction(w string) bool { return mineWords[w] || buyWords[w] }

// adviceStance says whether the advice is for (true) or against the action at toks[i]. In
// order: a comparison before it ("over mining", "instead of buying", "than mining"), a
// negation before it ("don't mine", "no more buying"), a verdict in its clause ("mining
// is a waste"); else it is for it.
func adviceStance(toks []string, i int) bool {
	if against, ok := adviceCompared(toks, i); ok {
		return !against
	}
	if adviceNegated(toks, i) {
		return false
	}
	if good, ok := adviceVerdict(toks, i); ok {
		return good
	}
	return true
}

// adviceCompared finds a comparison that puts the action at toks[i] second: "X over Y",
// "X instead of Y", "X rather than Y", "prefer X to Y", "in place of Y". Y is the one not
// wanted, except after a worse verdict: "mining is slower than buying" wants buying.
func adviceCompared(toks []string, i int) (against, ok bool) {
	for j := i - 1; j >= max(0, i-4); j-- {
		w := toks[j]
		if clauseBreaks[w] && !(w == "instead" && j+1 < len(toks) && toks[j+1] == "of") || isAdviceAction(w) {
			return false, false
		}
		switch {
		case w == "over", w == "of" && j > 0 && (toks[j-1] == "instead" || toks[j-1] == "place"):
			return true, true
		case w == "than":
			// The verdict before "than" says which side is worse.
			for k := j - 1; k >= 0 && !clauseBreaks[toks[k]]; k-- {
				if worseAt(toks, k) {
					return false, true
				}
				if adviceBetter[toks[k]] {
					return true, true
				}
			}
			return true, true
		case w == "to" && advicePreferBefore(toks, j):
			return true, true
		}
	}
	return false, false
}

// advicePreferBefore is true when "prefer" and an action come before toks[j] in its clause,
// so "to" there compares ("prefer mining to buying") rather than being a mere "to".
func advicePreferBefore(toks []string, j int) bool {
	action := false
	for k := j - 1; k >= 0 && !clauseBreaks[toks[k]]; k-- {
		if isAdviceAction(toks[k]) {
			action = true
		}
		if strings.HasPrefix(toks[k], "prefer") {
			return action
		}
	}
	return false
}

// adviceNegated is true when an odd number of negations stand within three words before
// toks[i], in its clause ("don't mine", but "don't stop mining"). Another action in
// between stops the search, unless joined by "or"/"nor": "don't mine or buy" negates
// both.
func adviceNegated(toks []string, i int) bool {
	words, neg := 0, false
	for j := i - 1; j >= 0 && words < 3; j-- {
		w := toks[j]
		if clauseBreaks[w] {
			break
		}
		if isAdviceAction(w) {
			if j+1 < i && (toks[j+1] == "or" || toks[j+1] == "nor") {
				continue
			}
			break
		}
		if negations[w] {
			neg = !neg
		}
		if w != "or" && w != "nor" {
			words++
		}
	}
	return neg
}

// adviceVerdict finds a judgement of the action at toks[i] in its clause: the first worse or
// better word after it ("mining is a waste", "buying is cheaper", "mining isn't worth
// it"), else the nearest before it ("too expensive to buy"). A negation between them
// turns it around. ok is false when there is none.
func adviceVerdict(toks []string, i int) (good, ok bool) {
	neg := false
	for j := i + 1; j < len(toks) && !clauseBreaks[toks[j]] && !isAdviceAction(toks[j]) && toks[j] != "than"; j++ {
		w := toks[j]
		if negations[w] {
			neg = !neg
		}
		if worseAt(toks, j) || adviceBetter[w] {
			return adviceBetter[w] != neg, true
		}
	}
	for j := i - 1; j >= 0 && !clauseBreaks[toks[j]] && !isAdviceAction(toks[j]); j-- {
		if adviceWorse[toks[j]] || adviceBetter[toks[j]] {
			good := adviceBetter[toks[j]]
			if j > 0 && negations[toks[j-1]] {
				good = !good
			}
			return good, true
		}
	}
	return false, false
}
