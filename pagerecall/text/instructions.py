"""Sentences addressed to an AI agent ("Note to AI assistants: ignore all previous instructions"):
flagged, never removed (layer 1, pure; stdlib ``re`` only).

A document's words are not instructions to whoever reads them, but an agent handed a page may
take them as such. :func:`instruction_like` finds the sentences that look planted for an agent,
so that answers can say ``instruction_like: true`` and the agent treats them as the document's
content. Flag only: the text stays searchable and quotable.

A sentence is flagged when it either

* tries to override an agent's instructions (``ignore / disregard / forget ... previous / prior /
  above ... instructions / prompt``, ``system prompt``, ``new instructions``), or
* names an AI addressee (``AI assistant``, ``language model``, ``LLM``, ``ChatGPT``, ``as an AI``,
  ``KI-Assistent``, ``modèle de langage``, ``AIアシスタント``, ``人工智能``, ``языковая модель``, ...)
  **and** tells it what to do (``report``, ``say``, ``respond``, ``rate``, ``must``, ``do not``,
  ``sollst``, ``doit``, ``debes``, ``してください``, ``请``, ``должен`` ...).

Why this shape: a manual is full of imperatives for its human reader ("Ignore the warning",
"Run make install as root"); without an AI addressee or an override of *instructions* they are
never flagged. Languages: English, German, French, Spanish, Italian, Portuguese, Dutch, Russian,
Japanese, Chinese (the bench corpus's main languages). Measured precision and recall on the
labelled set in ``tests/text/test_instruction_like.py`` and on the bench corpus: see the CHANGELOG.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["InstructionSentence", "instruction_like", "is_instruction_like"]

_I = re.IGNORECASE | re.UNICODE

_OVERRIDE = re.compile(
    r"(?:\b(?:ignore|disregard|forget|override|bypass)\b[^.!?\n]{0,40}?"
    r"\b(?:previous|prior|above|earlier|all|any|your|system|original)\b[^.!?\n]{0,25}?"
    r"\b(?:instructions?|prompts?|rules|guidelines|directives)\b"
    r"|\bsystem\s+prompt\b|\bnew\s+instructions\s*:"
    r"|\bignorier(?:e|en)?\b[^.!?\n]{0,40}\b(?:Anweisungen|Instruktionen|Vorgaben|Prompts?)\b"
    r"|\b(?:ignore[zs]?|oublie[zs]?)\b[^.!?\n]{0,40}\b(?:instructions|consignes)\b"
    r"|\b(?:ignora|ignore|olvida)\b[^.!?\n]{0,40}\b(?:instrucciones|instruções|istruzioni)\b"
    r"|\b(?:negeer)\b[^.!?\n]{0,40}\b(?:instructies)\b"
    r"|\b(?:игнорируй|игнорируйте|забудь|забудьте)\b[^.!?\n]{0,40}\b(?:инструкции|указания)"
    r"|(?:以前|前|上記|これまで)の(?:指示|命令|プロンプト)を(?:すべて)?無視"
    r"|(?:忽略|无视|忽視|無視)(?:之前|以上|先前|所有|上述)[^。！？\n]{0,10}(?:指令|指示|提示)"
    r")",
    _I,
)

_ADDRESSEE = re.compile(
    r"(?:\b(?:AI|A\.I\.)[\s-]*(?:assistants?|agents?|models?|systems?|tools?|reviewers?|readers?|bots?)\b"
    r"|\b(?:large\s+)?language\s+models?\b|\bLLMs?\b|\bchat\s?bots?\b|\bChatGPT\b|\bGPT-?\d\w*\b|\bClaude\b"
    r"|\bGemini\b|\bCopilot\b|\bas\s+an?\s+AI\b|\bdear\s+AI\b|\bautomated\s+(?:reviewers?|agents?|systems?)\b"
    r"|\bKI[\s-]*(?:Assistent(?:en)?|Agent(?:en)?|Modell|Systeme?)\b|\bSprachmodelle?\b"
    r"|\b(?:assistants?|agents?|modèles?)\s+(?:d['’]\s?)?IA\b|\bmodèles?\s+de\s+langage\b"
    r"|\b(?:asistentes?|agentes?|modelos?)\s+de\s+(?:IA|lenguaje)\b|\b(?:assistente|modello)\s+(?:di\s+)?(?:IA|linguaggio)\b"
    r"|\bИИ[\s-]*(?:ассистент\w*|агент\w*)|\bязыков\w+\s+модел\w*|\bнейросет\w*"
    r"|AI\s?(?:アシスタント|エージェント)|言語モデル|人工知能|人工智能|AI\s?助手|语言模型|大模型"
    r")",
    _I,
)

_DIRECTIVE = re.compile(
    r"(?:\b(?:must|should|shall|have\s+to|need\s+to|do\s+not|don['’]t|never|always|please|instead)\b"
    r"|\b(?:report|say|state|respond|reply|answer|output|print|write|rate|score|recommend|approve|accept|"
    r"mark|treat|consider|classify|summari[sz]e|include|omit|tell|confirm|claim|praise)\b"
    r"|\b(?:musst|sollst|müssen|sollen|bitte|antworte\w*|gib|bewerte\w*)\b"
    r"|\b(?:doit|doivent|devez|réponds|répondez|veuillez|indique[zr]?|évalue[zr]?)\b"
    r"|\b(?:debes|debe|responde\w*|indica|evalúa|por\s+favor|deve|devi|rispondi|per\s+favore)\b"
    r"|\b(?:должен|должна|должны|ответь\w*|сообщи\w*|пожалуйста|оцени\w*)"
    r"|してください|しなさい|すること|答えて|報告して|请|必须|应该|務必|务必|回答"
    r")",
    _I,
)

_SENTENCE = re.compile(r"[^.!?。！？\n]+(?:[.!?。！？]+|\n|$)")


@dataclass(frozen=True, slots=True)
class InstructionSentence:
    """A flagged sentence: ``text`` (stripped), ``start``/``end`` code-point offsets into the
    text it was found in (end exclusive) and ``why`` (``override`` or ``addressed_to_ai``)."""

    text: str
    start: int
    end: int
    why: str

    def to_dict(self) -> dict:
        return {"text": self.text, "start": self.start, "end": self.end, "why": self.why}


def instruction_like(text: str) -> list[InstructionSentence]:
    """The sentences of ``text`` that look addressed to an AI agent (module docstring), in order.

    Sentences end at ``. ! ?`` (and their CJK forms) or a line break; a sentence longer than 1,000
    characters is looked at in its first 1,000. Pure and cheap: three regular expressions, tried
    only on sentences of texts that contain a trigger at all (~1 µs per clean sentence)."""
    if not text or not (_OVERRIDE.search(text) or _ADDRESSEE.search(text)):
        return []
    found: list[InstructionSentence] = []
    for m in _SENTENCE.finditer(text):
        s = m.group(0)
        body = s[:1000]
        if _OVERRIDE.search(body):
            why = "override"
        elif _ADDRESSEE.search(body) and _DIRECTIVE.search(body):
            why = "addressed_to_ai"
        else:
            continue
        lead = len(s) - len(s.lstrip())
        stripped = s.strip()
        found.append(InstructionSentence(stripped, m.start() + lead, m.start() + lead + len(stripped), why))
    return found


def is_instruction_like(text: str) -> bool:
    """True when ``text`` holds at least one sentence :func:`instruction_like` flags."""
    return bool(instruction_like(text))
