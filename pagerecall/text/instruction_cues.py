"""Words that make a sentence worth asking the instruction classifier about.

A sentence addressed to an AI agent names the agent (AI, assistant, model, bot, reviewer), what it
was told (instructions, prompt, rules, told, asked), or what it should do with the document
(summarise, rate, score, recommend, reply, answer, praise). :func:`is_candidate` is true when a
sentence, as :func:`pagerecall.text.reader_view.reader_view` gives it and case folded, holds one
of :data:`CUE_STEMS`: those sentences, and only those, are embedded and scored at build time
(:mod:`pagerecall.model.instruction_judge`). 21 languages: the ten of the bench corpus (en, de,
fr, es, it, pt, nl, ru, ja, zh) and pl, tr, ko, ar, hi, sv, cs, id, uk, vi, fa. A stem is a
substring (no word boundary), so that inflections and compounds pass.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["CUE_ACRONYMS", "CUE_STEMS", "first_cue", "is_candidate", "stems_in"]

CUE_STEMS = (
    # en
    "ignore", "disregard", "forget", "bypass", "instruction", "system prompt", "your prompt", "assistant",
    "chatbot", "language model", "reviewer", "summar", "system message", "developer mode", "you were told",
    "been told", "been asked", "from now on", "set aside", "your rules", "your guidelines", "rate this",
    "score", "recommend accept", "praise", "approve", "your answer", "stop obeying", "user asks", "users ask", "dear model", "pretend",
    "automated system", "bots ", "ai agent", "ai-agent",
    # de
    "ignorier", "vergiss", "vergessen", "anweisung", "ki-", "sprachmodell", "systemprompt", "gutachter", "bewerte",
    "empfiehl", "zusammenfass", "gesagt hat", "antworte", "lobe", "liebes modell", "tu so, als",
    # fr
    "oublie", "consigne", "modèle de langage", "prompt système", "relecteur", "résum",
    "réponds", "répondez", "recommande", "notez", "éloge",
    # es, pt, it
    "ignora", "olvida", "instrucci", "modelo de lenguaje", "modelos de lenguaje", "modelo de linguagem", "modelos de linguagem", "asistente", "assistente",
    "prompt de sistema", "prompt di sistema", "revisor", "resum", " responde", "recomienda", "recomende", "elogia", "elogie", "dimentica", "istruzion",
    "modello linguistico", "caro modello", "fai finta", "revisore", "riassunt", "rispondi", "raccomanda", "loda", "esqueça", "instruç",
    "califica", "avalie", "valuta",
    # nl, sv
    "negeer", "vergeet", "instructie", "taalmodel", "beoordel", "samenvatting", "antwoord", "ignorera",
    "glöm", "instruktion", "språkmodell", "sammanfattning", "svara", "beröm",
    # ru, uk
    "игнорир", "забудь", "инструкц", "языков", "системн", "ии-", "ассистент", "рецензент", "оцени", "отвечай",
    "ответь", "дорогая модель", "сделай вид", "порекоменд", "хвали", "резюме", "ігноруй", "інструкц", "мовна модель", "ші-", "асистент",
    "оціни", "відповідай",
    # pl, cs
    "zignoruj", "zapomnij", "instrukcj", "model językowy", "asystent", "asystenc", "streszcz", "promptu", "oceń", "odpowiedz", "poleć",
    "chwal", "ignoruj", "zapomeň", "pokyn", "jazykový model", "asistent", "ohodnoť", "odpověz", "doporuč",
    # tr, id, vi
    "yok say", "unut", "talimat", "dil model", "asistan", "yapay zek", "değerlendir", "yanıt", "öner", "abaikan",
    "lupakan", "instruksi", "model bahasa", "asisten", "jawab", "rekomendasi", "bỏ qua", "quên", "hướng dẫn",
    "mô hình ngôn ngữ", "trợ lý", "trả lời", "đánh giá",
    # ar, fa, hi
    "تجاهل", "انس", "التعليمات", "نموذج", "ذكاء اصطناعي", "مساعد", "أجب", "أوص", "نادیده", "فراموش",
    "دستور", "مدل زبانی", "هوش مصنوعی", "دستیار", "پاسخ", "अनदेखा", "भूल", "निर्देश", "भाषा मॉडल", "एआई",
    "सहायक", "उत्तर", "सारांश",
    # ja, zh, ko
    "無視", "忘れ", "指示", "言語モデル", "アシスタント", "プロンプト", "査読", "要約", "答え", "推薦", "褒め", "評価",
    "忽略", "忘掉", "之前的", "提示词", "语言模型", "助手", "人工智能", "审稿", "摘要", "回答", "推荐", "夸奖", "评为",
    "무시", "잊", "지시", "언어 모델", "어시스턴트", "프롬프트", "요약", "답하", "추천", "칭찬", "평가",
)
"""Case-folded substrings; a sentence holding one is a candidate (module docstring). Left out
because manuals are full of them (measured on the bench corpus: 1.4 candidates per page with
them, most of them these): "rules" (debian/rules), "override", "prompt" (the shell's),
"recommend", "指令" (a command), and short words matched inside others (they are in
:data:`CUE_ACRONYMS`)."""

CUE_ACRONYMS = re.compile(r"(?<![A-Za-z])(?:AI|A\.I\.|IA|KI|ИИ|ШІ|LLMs?|GPT\w*|ChatGPT)(?![A-Za-z])")
"""The short names of an AI, case-sensitive and not inside a Latin word (Italian "ai", "via ",
"wiki" are no cue; "AIエージェント", "AI助手" are)."""


@lru_cache(maxsize=1)
def _cue() -> re.Pattern[str]:
    return re.compile("|".join(sorted({re.escape(s) for s in CUE_STEMS}, key=len, reverse=True)))


_STEMS = tuple(sorted(set(CUE_STEMS)))


def first_cue(sentence: str) -> int:
    """Offset of the first cue in ``sentence``, or -1."""
    got = [m.start() for m in (_cue().search(sentence.casefold()), CUE_ACRONYMS.search(sentence)) if m]
    return min(got) if got else -1


def stems_in(text: str) -> tuple[str, ...]:
    """The stems of :data:`CUE_STEMS` that ``text`` (case folded here) holds: one C-level
    substring scan per stem (~0.3 ms for a page of 3,000 characters; a regular expression of the
    ~300 stems, tried at every position, costs ten times that)."""
    folded = text.casefold()
    got = tuple(s for s in _STEMS if s in folded)
    return got + ("\0acronym",) if CUE_ACRONYMS.search(text) else got


def is_candidate(sentence: str, stems: tuple[str, ...] | None = None) -> bool:
    """True when ``sentence`` (case folded here) holds one of :data:`CUE_STEMS`, or of ``stems``
    when given (those :func:`stems_in` found in the whole text the sentence comes from)."""
    stems = _STEMS + ("\0acronym",) if stems is None else stems
    folded = sentence.casefold()
    if any(s in folded for s in stems if s != "\0acronym"):
        return True
    return "\0acronym" in stems and CUE_ACRONYMS.search(sentence) is not None
