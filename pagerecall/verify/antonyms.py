"""Antonyms a quote may put in the place of the source's word (``before`` / ``after``, ``über`` /
``unter``, ``最大`` / ``最小``): :func:`antonymous`, for :mod:`pagerecall.verify.differences`.

A quote that swaps one says the opposite of the page in the same characters count as a harmless
misquote ("after the build" for "before the build" scores 0.9), so such a swap is a difference of
kind ``antonym``, which turns the meaning (``contradicted``) like a negation.

Languages: those of :data:`~pagerecall.verify.differences.NEGATIONS` (English, German, French,
Spanish, Italian, Portuguese, Dutch, Russian, Polish) in :data:`ANTONYMS`, one table with the
languages in comments, lower case; Japanese, Chinese (simplified and traditional) and Korean in
:data:`CJK_ANTONYMS`, looked for in the differing characters and one on each side (as
:data:`~pagerecall.verify.differences.CJK_NEGATIONS`).

A word of :data:`ANTONYMS` is a form (``add``, ``adds``), or a stem with ``*``: the stem and up to
:data:`STEM_SUFFIX` more letters (``increas*``: increase, increases, increased, increasing). A stem
is four letters or more; shorter words are listed form by form (``add`` would take in ``address``).
Pairs whose opposite is a negation (``always`` / ``never``, ``with`` / ``without``, ``valid`` /
``invalid``) are the negation rule's already. Why: docs/decisions/quote-verification-trust.md.
"""

from __future__ import annotations

import functools

__all__ = ["ANTONYMS", "CJK_ANTONYMS", "STEM_SUFFIX", "antonymous", "cjk_antonymous"]

ANTONYMS = (
    # English
    "before after|above below|over under|increas* decreas*|rais* lower*|maxim* minim*|max min|open* clos*|"
    "first last|enabl* disabl*|add,adds,added,adding remov*|includ* exclud*|upper lower|higher lower|more less|"
    "most least|true false|old new|older newer|oldest newest|input* output*|internal* external*|local remote|"
    "public private|success* fail*|easy difficult|easier harder|same different|inside outside|start* stop*|"
    "minor major|small large|smaller larger|big small|simple complex|early late|earlier later|earliest latest|"
    "required optional|mandatory optional|allow* forbid*|allow* deny,denies,denied|permit* prohibit*|top bottom|left right|"
    "plus minus|import* export*|accept* reject*|best worst|better worse|high low|long short|longer shorter|"
    "fast slow|faster slower|upstream downstream|static dynamic|permanent* temporar*|begin* end,ends,ended|"
    "north south|east west|enter* exit*|send* receiv*|push* pull*|upload* download*|ascending descending|"
    "increment* decrement*|prefix* suffix*|previous next|"
    # verify11: pairs across synonyms (easy/hard, simple/difficult, increase/reduce)
    "easy,easier,easiest hard,harder,hardest|simple,simpler difficult|increas* reduc*|grow,grows,growing,grew shrink*|"
    "more fewer|many few|gain* loss,losses|success* failure*",
    # German
    "vor nach|vorher nachher|bevor nachdem|über unter|oberhalb unterhalb|oben unten|erhöh* verringer*|"
    "erhöh* senk*|steig* sink*|zunehm* abnehm*|maxim* minim*|offen,offene,offenen geschlossen*|öffn* schließ*|"
    "geöffnet geschlossen*|erste,ersten,erster,erstes,erstem letzte*|aktivier* deaktivier*|einschalt* ausschalt*|hinzufüg* entfern*|"
    "neu,neue,neuen,neuer,neues,neuem alt,alte,alten,alter,altes,altem|neuer,neueren älter*|mehr weniger|"
    "meist* wenigst*|wahr falsch*|richtig* falsch*|intern* extern*|lokal* entfernt*|öffentlich* privat*|"
    "einfach* schwierig*|leicht* schwer*|groß* klein*|größ* klein*|gleich* verschieden*|innerhalb außerhalb|"
    "anfang* ende,endes,enden|eingab* ausgab*|eingang* ausgang*|früh* spät*|erforderlich* optional*|"
    "erlaubt* verboten*|erlaub* verbiet*|hoch,hohe,hohen,höher* niedrig*|schnell* langsam*|lang,lange,langen kurz*|"
    "import* export*|links rechts|vorteil* nachteil*|vorwärts rückwärts|plus minus|obere* untere*|"
    "vorherig* nächst*|aufsteigend* absteigend*|senden empfangen|erfolgreich* fehlgeschlagen*|erfolg* misserfolg*|"
    "leicht* schwierig*|einfach* schwer,schwere,schweren,schwerer|erhöh* reduzier*|vergrößer* verkleiner*|steiger* senk*|"
    "viel,viele,vielen wenig,wenige,wenigen|davor danach|zuvor danach|zunahme abnahme",
    # French
    "avant après|audessus audessous|dessus dessous|augment* diminu*|hauss* baiss*|maxim* minim*|ouvert* ferm*|"
    "ouvr* ferm*|premi* derni*|activ* désactiv*|ajout* supprim*|ajout* retir*|nouv* anci*|plus moins|vrai* faux|"
    "vrai* fausse*|intern* extern*|local* distant*|public,publique* privé*|facile* difficile*|même* différent*|"
    "grand* petit*|haut* bas,basse,basses|supérieur* inférieur*|début* fin,fins|entrée* sortie*|"
    "obligatoire* facultati*|obligatoire* optionnel*|précédent* suivant*|gauche* droite*|accept* refus*|"
    "autoris* interdi*|réussi* échou*|succès échec*|meilleur* pire*|rapide* lent*|long,longue,longues court*|"
    "import* export*|montant* descendant*|croissant* décroissant*|envoy* recev*|envoi* récept*|entrant* sortant*|"
    "install*,installation* désinstall*,désinstallation*|origine* destination*|"
    "augment* rédui*|simple* compliqu*|facile* compliqu*|beaucoup peu|croissance décroissance|hausse baisse",
    # Spanish
    "antes después|encima debajo|arriba abajo|aument* disminu*|máxim* mínim*|maxim* minim*|abiert* cerrad*|"
    "abri* cerr*|primer* últim*|activ* desactiv*|habilit* deshabilit*|añad* elimin*|agreg* elimin*|"
    "nuev* viej*|nuev* antigu*|más menos|verdader* fals*|intern* extern*|local* remot*|públic* privad*|"
    "fácil* difícil*|mism* diferent*|grande* pequeñ*|superior* inferior*|principio* final*|inicio fin|"
    "entrada* salida*|obligatori* opcional*|anterior* siguiente*|izquierd* derech*|acept* rechaz*|"
    "permit* prohib*|éxito* fracas*|mayor menor|mejor* peor*|alto,alta,altos,altas bajo,baja,bajos,bajas|"
    "rápid* lent*|larg* cort*|import* export*|ascendente* descendente*|envi* recib*|instal*,instalacion*,instalación* desinstal*,desinstalacion*,desinstalación*|"
    "aument* reduc*|sencill* difícil*|sencill* complicad*|simple* complicad*|fácil* complicad*|mucho,mucha,muchos,muchas poco,poca,pocos,pocas",
    # Italian
    "prima dopo|sopra sotto|aument* diminu*|massim* minim*|apert* chius*|apri* chiud*|primo,prima,primi,prime "
    "ultim*|attiv* disattiv*|abilit* disabilit*|aggiung* rimuov*|nuov* vecch*|più meno|vero,vera,veri,vere fals*|"
    "intern* estern*|local* remot*|pubblic* privat*|facil* difficil*|stess* divers*|grand* piccol*|"
    "superior* inferior*|inizio fine|ingresso uscita|sinistr* destr*|maggior* minor*|miglior* peggior*|"
    "veloc* lent*|lung* cort*",
    # Portuguese
    "antes depois|acima abaixo|aument* diminu*|máxim* mínim*|abert* fechad*|abri* fech*|primeir* últim*|"
    "ativ* desativ*|habilit* desabilit*|adicion* remov*|novo,nova,novos,novas velho,velha,velhos,velhas|"
    "mais menos|verdadeir* fals*|intern* extern*|local* remot*|públic* privad*|fácil difícil|mesm* diferent*|"
    "grande* pequen*|superior* inferior*|início fim|entrada* saída*|esquerd* direit*|maior menor|"
    "melhor* pior*|rápid* lent*|long* curt*",
    # Dutch
    "voor na|boven onder|verhog* verlag*|maxim* minim*|open* gesloten|openen sluiten|eerst* laatst*|"
    "inschakel* uitschakel*|toevoeg* verwijder*|nieuw* oud,oude,ouder,oudere|meer minder|intern* extern*|"
    "openbar* privé|makkelijk* moeilijk*|gemakkelijk* moeilijk*|zelfde verschillend*|groot,grote klein,kleine|"
    "begin einde|invoer uitvoer|links rechts|toestaan verbieden|toegestaan verboden|hoog,hoge laag,lage|"
    "snel,snelle langzam*|lang,lange kort,korte|beter slechter",
    # Russian
    "до после|перед после|раньше позже|выше ниже|над под|увелич* уменьш*|повыш* пониж*|максим* миним*|"
    "открыт* закрыт*|откры* закры*|перв* последн*|включ* выключ*|добав* удал*|"
    "новый,новая,новое,новые,нового,новой,новых,новым старый,старая,старое,старые,старого,старой,старых,старым|"
    "больш* меньш*|больш* маленьк*|истин* ложн*|внутрен* внешн*|локальн* удалённ*|локальн* удаленн*|"
    "публичн* частн*|прост* сложн*|легк* трудн*|начал* конец,конца,конце,концом|вход* выход*|"
    "верхн* нижн*|предыдущ* следующ*|можно нельзя|левый,левая,левое,левой правый,правая,правое,правой|"
    "разреш* запрещ*|успешн* неудачн*|правильн* неправильн*|быстр* медлен*|длинн* коротк*|импорт* экспорт*|"
    "лучш* худш*",
    # Polish
    "przed po|powyżej poniżej|nad pod|zwiększ* zmniejsz*|maksym* minim*|otwart* zamknię*|pierwsz* ostatni*|"
    "włącz* wyłącz*|dodaj* usuń|dodać usunąć|nowy,nowa,nowe stary,stara,stare|więcej mniej|prawd* fałsz*|wewnętrzn* zewnętrzn*|"
    "lokaln* zdaln*|publiczn* prywatn*|łatw* trudn*|duży,duża,duże,dużo mały,mała,małe,mało|początek koniec|wejści* wyjści*|"
    "poprzedni* następn*|lewy,lewa,lewe prawy,prawa,prawe",
)
"""Antonym pairs (module docstring): ``a b`` separated by ``|``, each side a form, forms
separated by commas, or a stem ending in ``*``; lower case; languages in comments."""

CJK_ANTONYMS = (
    # Japanese (and the characters Chinese shares)
    "前 後|上 下|増 減|大 小|開 閉|多 少|高 低|長 短|新 旧|新 古|入 出|内 外|始 終|早 遅|最初 最後|以前 以後|"
    "追加 削除|許可 禁止|成功 失敗|必須 任意|左 右|東 西|南 北|易 難|簡単 難しい|強 弱|重 軽|遠 近|明 暗|"
    "送信 受信|正しい 誤った|同じ 異なる|昇順 降順|有効 無効|増やす 減らす|開く 閉じる|"
    "以前 以降|上げ 下げ|上昇 下降|拡大 縮小|容易 困難|許可 拒否|増加 減少|"
    # Chinese (simplified, traditional)
    "前 后|增 减|增 減|开 关|開 關|长 短|新 舊|內 外|早 晚|成功 失败|允许 禁止|允許 禁止|正确 错误|正確 錯誤|"
    "启用 禁用|啟用 停用|添加 删除|添加 刪除|打开 关闭|打開 關閉|强 弱|轻 重|輕 重|远 近|遠 近|难 易|難 易|"
    "升 降|始 终|始 終|发送 接收|發送 接收|"
    # Korean
    "이전 이후|전 후|위 아래|증가 감소|최대 최소|열기 닫기|열린 닫힌|많은 적은|높은 낮은|긴 짧은|입력 출력|"
    "내부 외부|시작 종료|성공 실패|허용 금지|이상 이하|추가 삭제|활성화 비활성화|왼쪽 오른쪽|상위 하위"
)
"""Antonym pairs of scripts written without spaces (module docstring): ``a b`` separated by ``|``."""

STEM_SUFFIX = 5
"""Letters a stem of :data:`ANTONYMS` may take after it (``nouv*``: nouveau, nouvelle, nouveaux; five
for ``ouvert*``: ouvertes is three, ``aument*``: aumentado three; a longer word is another word)."""


@functools.cache
def _table() -> tuple[dict[str, frozenset[tuple[int, int]]], dict[str, frozenset[tuple[int, int]]]]:
    """(form -> {(pair, side)}, stem -> {(pair, side)}) of :data:`ANTONYMS`; built on first use."""
    forms: dict[str, set] = {}
    stems: dict[str, set] = {}
    pair = 0
    for block in ANTONYMS:
        for entry in block.split("|"):
            if not entry.strip():
                continue
            sides = entry.split()
            if len(sides) != 2:
                raise ValueError(f"antonym pair {entry!r}: two sides expected")
            for side, words in enumerate(sides):
                for w in words.split(","):
                    if w.endswith("*"):
                        if len(w) < 5:
                            raise ValueError(f"antonym stem {w!r}: four letters or more")
                        stems.setdefault(w[:-1], set()).add((pair, side))
                    else:
                        forms.setdefault(w, set()).add((pair, side))
            pair += 1
    return ({k: frozenset(v) for k, v in forms.items()}, {k: frozenset(v) for k, v in stems.items()})


def _sides(word: str) -> frozenset[tuple[int, int]]:
    """The (pair, side) entries of :data:`ANTONYMS` a lower-case ``word`` is a form of."""
    forms, stems = _table()
    got = set(forms.get(word, ()))
    for n in range(max(4, len(word) - STEM_SUFFIX), len(word) + 1):
        got.update(stems.get(word[:n], ()))
    return frozenset(got)


def antonymous(quote_words: list[str], source_words: list[str]) -> bool:
    """True when a word of ``quote_words`` and a word of ``source_words`` (lower case, the words of
    one differing place) are the two sides of one pair of :data:`ANTONYMS` (``after`` for
    ``before``, ``decreased`` for ``increases``). A word that is a form of both sides (``lower``:
    of ``upper``/``lower`` and ``raise``/``lower``) counts for each pair on its own."""
    if not quote_words or not source_words or len(quote_words) > 3 or len(source_words) > 3:
        return False
    qs = [s for w in quote_words for s in _sides(w)]
    ss = {s for w in source_words for s in _sides(w)}
    if any((p, 1 - side) in ss and (p, side) not in ss for p, side in qs):
        return True
    if len(quote_words) == len(source_words) == 1:  # one compound for another: "difficult-to-use" / "easy-to-use"
        core = _cores(quote_words[0], source_words[0])
        return core is not None and core != (quote_words[0], source_words[0]) and antonymous([core[0]], [core[1]])
    return False


def _cores(a: str, b: str) -> tuple[str, str] | None:
    """``a`` and ``b`` without the letters they share at both ends (``difficulttouse`` / ``easytouse`` ->
    ``difficult`` / ``easy``; ``normalise`` joins a compound's hyphenated parts), when both cores keep
    three letters or more, else None."""
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    j = 0
    while j < min(len(a), len(b)) - i and a[-1 - j] == b[-1 - j]:
        j += 1
    ca, cb = a[i:len(a) - j], b[i:len(b) - j]
    if len(ca) < 3 or len(cb) < 3:
        return None
    # a shared end must be a whole part of the compound: the cores are forms of the table themselves
    return (ca, cb) if _sides(ca) and _sides(cb) else None


@functools.cache
def _cjk_pairs() -> tuple[tuple[str, str], ...]:
    return tuple(tuple(e.split()) for e in CJK_ANTONYMS.split("|") if e.strip())


def cjk_antonymous(quote_chars: str, source_chars: str) -> bool:
    """True when ``quote_chars`` holds one side of a pair of :data:`CJK_ANTONYMS` that
    ``source_chars`` lacks and ``source_chars`` the other side that ``quote_chars`` lacks (the
    differing characters of one place, with one on each side: ``最小`` / ``最大`` differ in ``小`` /
    ``大``)."""
    for a, b in _cjk_pairs():
        for x, y in ((a, b), (b, a)):
            if x in quote_chars and y in source_chars and x not in source_chars and y not in quote_chars:
                return True
    return False
