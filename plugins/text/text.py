"""The text plugin: statistics, readability, language guess and frequent
words of plain text. Its actions are declared in tool.yaml beside it; the
toolhost_plugin module serves them to the host or runs them as a CLI."""

import collections
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import toolhost_plugin as th  # noqa: E402

WORDS_PER_MINUTE = 238  # silent reading of non-fiction, adults (Brysbaert 2019)

# The commonest function words of each language: a text's language is the
# one whose words make up the largest share of it.
FUNCTION_WORDS = {
    "en": "the of and to a in is it that was he for on are as with his they at be this from i have or by one had not but what all were when we there can an your which their said if do will each about how up out them she many some so these would other into has more her two like him see time could no make than first been its who now people my made over did down only way find use may water long little very after words called just where most know",
    "pt": "de a o que e do da em um para com não uma os no se na por mais as dos como mas ao ele das à seu sua ou quando muito nos já eu também só pelo pela até isso ela entre depois sem mesmo aos seus quem nas me esse eles você essa num nem suas meu às minha numa pelos elas qual nós lhe deles essas esses pelas este dele tu te vocês vos lhes meus minhas teu tua teus tuas nosso nossa nossos nossas dela delas esta estes estas aquele aquela aqueles aquelas isto aquilo está são foi há ser tem",
    "es": "de la que el en y a los del se las por un para con no una su al lo como más pero sus le ya o este sí porque esta entre cuando muy sin sobre también me hasta hay donde quien desde todo nos durante todos uno les ni contra otros ese eso ante ellos e esto mí antes algunos qué unos yo otro otras otra él tanto esa estos mucho quienes nada muchos cual poco ella estar estas algunas algo nosotros es son fue ha",
    "fr": "de la le et les des en un du une que est pour qui dans par plus pas au sur ne se ce il sont avec son aux mais comme ou elle leur nous vous ils cette été tout ses sa on lui y même fait était ont bien sans peut deux ces où aussi entre très dont alors car donc",
    "de": "der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als auch es an werden aus er hat dass sie nach wird bei einer um am sind noch wie einem über einen so zum war haben nur oder aber vor zur bis mehr durch man sein wurde sei ich",
    "it": "di e il la che in a per un è del non una le si con da i gli al della come ma sono lo anche più alla dei nel se delle ha ci questo suo tra loro o sua essere quando dal ne cui molto quello nella mi degli perché era io",
    "nl": "de en van het een in is dat op te zijn met voor niet aan er om ook als bij door maar uit dan nog tot wel naar kan werd over deze hij ze was worden hebben heeft wordt geen meer zo wat veel wij ik je",
}
FUNCTION_SETS = {lang: set(ws.split()) for lang, ws in FUNCTION_WORDS.items()}

WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", re.UNICODE)
SENTENCE_END = re.compile(r"[.!?…]+(?=\s|$)|[。！？]")


def read_text(req):
    """The text of a call: args text or path, exactly one."""
    text, path = req.args.get("text"), req.args.get("path")
    if (text is None) == (path is None):
        raise th.ToolError("invalid_args", "give exactly one of text or path",
                           next_step="pass the text itself as text, or a local file as path")
    if path is not None:
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except FileNotFoundError:
            raise th.ToolError("not_found", "no file at %s" % path, next_step="check the path (relative to the host's folder)")
        except (OSError, UnicodeDecodeError) as e:
            raise th.ToolError("unreadable", "cannot read %s as UTF-8 text: %s" % (path, e))
    return text


def words_of(text):
    return WORD.findall(text)


def syllables(word):
    """Syllables of an English word, estimated from its vowel groups (the
    usual heuristic: a silent final e and -es/-ed endings do not count)."""
    w = word.lower().strip("'’")
    if len(w) <= 3:
        return 1
    w = re.sub(r"(?:[^laeiouy]es|[^laeiouy]ed|[^laeiouy]e)$", "", w)
    w = re.sub(r"^y", "", w)
    return max(1, len(re.findall(r"[aeiouyáéíóúàèìòùâêîôûãõäëïöü]+", w)))


def sentence_count(text):
    n = len(SENTENCE_END.findall(text))
    if text.strip() and not SENTENCE_END.search(text.strip()[-1:]):
        n += 1  # a last sentence without a full stop
    return n


def stats(req):
    text = read_text(req)
    ws = words_of(text)
    n_words, n_sent = len(ws), sentence_count(text)
    n_syl = sum(syllables(w) for w in ws)
    data = {
        "characters": len(text),
        "letters": sum(1 for c in text if c.isalpha()),
        "words": n_words,
        "sentences": n_sent,
        "syllables": n_syl,
        "reading_minutes": round(n_words / WORDS_PER_MINUTE, 2),
    }
    if n_words and n_sent:
        wps, spw = n_words / n_sent, n_syl / n_words
        data["flesch_reading_ease"] = round(206.835 - 1.015 * wps - 84.6 * spw, 2)
        data["flesch_kincaid_grade"] = round(0.39 * wps + 11.8 * spw - 15.59, 2)
    md = ["| measure | value |", "|---|---:|"]
    md += ["| %s | %s |" % (k.replace("_", " "), v) for k, v in data.items()]
    return th.Result(data, "\n".join(md))


def guess(ws):
    lowered = [w.lower() for w in ws]
    scores = {}
    for lang, fw in FUNCTION_SETS.items():
        hits = sum(1 for w in lowered if w in fw)
        scores[lang] = hits / len(lowered) if lowered else 0.0
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    best, top = ranked[0]
    second = ranked[1][1]
    # Confidence: how far the best stands out, damped for short texts.
    confidence = 0.0 if top == 0 else (top - second) / top * (1 - math.exp(-len(lowered) / 20))
    return best if top > 0 else "unknown", round(confidence, 3), {k: round(v, 4) for k, v in ranked}


def language(req):
    ws = words_of(read_text(req))
    lang, confidence, scores = guess(ws)
    data = {"language": lang, "confidence": confidence, "words": len(ws), "scores": scores}
    return th.Result(data, "**%s** (confidence %.2f over %d words)" % (lang, confidence, len(ws)))


def top_words(req):
    text = read_text(req)
    ws = words_of(text)
    lang, _, _ = guess(ws)
    skip = FUNCTION_SETS.get(lang, set())
    counts = collections.Counter(w.lower() for w in ws if w.lower() not in skip and len(w) > 1)
    n = req.args.get("max-results", 10)
    top = [{"word": w, "count": c} for w, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]
    data = {"language": lang, "words": len(ws), "distinct": len(counts), "top": top,
            "truncated": len(counts) > n}
    md = ["| word | count |", "|---|---:|"] + ["| %s | %d |" % (t["word"], t["count"]) for t in top]
    return th.Result(data, "\n".join(md))


ACTIONS = {"stats": stats, "language": language, "top-words": top_words}

if __name__ == "__main__":
    th.main(ACTIONS)
