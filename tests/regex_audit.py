"""Every regular expression of kbtools, audited for `test_regex_linear`: those that see
author input with how the code applies them (AUTHOR), the others with the reason they
do not (OTHER). A new regex fails `test_every_regex_is_audited` until it is added here."""

from __future__ import annotations

# name -> how the code applies the pattern ("module.ATTR" or "module:<literal pattern>")
AUTHOR: dict[str, str] = {
    "kbtools.config._CONTROL": "search",  # kb.toml's [release] knowledge_base
    "kbtools.serve.releasefiles._FORMULA_NAME": "match",  # a URL path segment
    "kbtools.decision.conditions._BOUND_JOIN": "finditer",  # a table cell (at most 80 characters)
    "kbtools.serve.doclines._LINES": "match",  # the ?lines= parameter
    "kbtools.serve.doclines._CHUNK": "fullmatch",  # the ?chunk= parameter (hex)
    "kbtools.decision.numerals._EN_WORD": "finditer",  # a question: its English words
    "kbtools.decision.numerals._JOINED": "match",  # what follows English number words
    "kbtools.decision.given._SEVERAL": "split",  # an input value (CLI, API, MCP)
    "kbtools.decision.given._DATE": "match",  # an input value
    "kbtools.decision.words._LEAD_NUMBER": "match",  # a table cell, an input value
    "kbtools.decision.given._BELOW_ZERO_AT": "sub",  # an input value
    "kbtools.decision.given._SCALE_BEFORE": "match",  # an input value
    "kbtools.decision.numerals._MIXED": "finditer",  # a table cell, an input value, a question
    "kbtools.decision.numerals._DIGIT_RUN": "findall",  # a numeral `_MIXED` found
    "kbtools.decision.numerals._TENTHS_AT": "finditer",  # a cell, an input value (also match)
    "kbtools.decision.numerals._TENTHS_SPAN": "sub",  # a table cell, an input value
    r"kbtools.decision.numerals:10|\d(?:\.\d)?": "fullmatch",  # a number before 成
    r"kbtools.decision.numerals:\d+": "sub",  # a numeral `_MIXED` found
    "kbtools.query.identifiers._CODE_SHAPE": "fullmatch",  # a question's term or identifier
    "kbtools.query.number_spans._SPAN_JOINER": "match",  # what follows a Chinese numeral
    "kbtools.query.number_spans._NEXT_VALUE": "match",  # the 8 characters after a Chinese numeral
    "kbtools.decision.conditions._PERCENT_SAID": "sub",  # a table cell, an input value
    "kbtools.decision.conditions._PERMILLE_SAID": "sub",  # a table cell, an input value
    "kbtools.decision.units._SPELLED": "sub",  # an input value
    "kbtools.decision.units._EN_COUNTED": "search",  # a table header without its unit
    "kbtools.query.values._EN_SPAN_GAP": "fullmatch",  # the text between two numbers
    "kbtools.query.values._AGO": "match",  # what follows a duration
    "kbtools.query.values._EN_OBJECT": "match",  # what follows a duration
    "kbtools.query.input_values._MORE": "match",  # the character after a half (one class)
    "kbtools.query.places._VALUE_AHEAD": "match",  # what follows a place word
    "kbtools.query.crosslingual._LETTERS": "finditer",  # a question: its Latin words
    "kbtools.query.crosslingual._AFTER_NUMBER": "search",  # a question, before a word
    "kbtools.query.crosslingual._ACRONYM": "fullmatch",  # a question's word as written
    "kbtools.query.crosslingual._WORD_TERM": "fullmatch",  # a question's term
    "kbtools.query.filter_checks._LOOSE": "sub",  # a --where value, a front-matter value
    "kbtools.query.identifiers._MARKS": "sub",  # a question less its identifiers
    "kbtools.query.question._RUN": "findall",  # a question
    "kbtools.query.question._LATIN_RUN": "fullmatch",  # a run of a question's letters
    "kbtools.query.unknown._VERSION_OR_ADDRESS": "finditer",  # a question
    "kbtools.query.wording._GLUED": "sub",  # a question (also match on one of its terms)
    r"kbtools.query.wording:\d+(?:\.\d+)?": "fullmatch",  # a term less its short form
    "kbtools.query.places._DIGITS": "match",  # what follows a Chinese place word
    "kbtools.query.naming._LATIN_WORDS": "findall",  # a table's subject words
    "kbtools.serve.ops._TAG": "match",  # /api/diff?old=&new=
    "kbtools.serve.i18n._LANG_TAG": "fullmatch",  # a front-matter `lang` value
    "kbtools.serve.docview._IMG_ONLY": "fullmatch",  # a raw HTML block or inline tag
    "kbtools.serve.media._MEDIA_ONLY": "fullmatch",  # a raw HTML block
    "kbtools.markdown.parser.CALLOUT": "match",  # a quote's first text
    "kbtools.serve.docview._A_OPEN": "fullmatch",  # a raw HTML inline tag
    "kbtools.serve.docview._PICTURE": "fullmatch",  # a raw HTML inline tag
    "kbtools.serve.docview._A_CLOSE": "fullmatch",  # a raw HTML inline tag
    "kbtools.serve.docview._DISCLOSURE_TAG": "split",  # a raw HTML block
    "kbtools.serve.docview._WRAPPER": "sub",  # a raw HTML block (also findall)
    "kbtools.serve.docview._ANY_TAG": "search",  # the text between a raw HTML block's tags
    "kbtools.markdown.figures._TAG": "finditer",  # a raw HTML block (also sub: a line)
    "kbtools.markdown.figures._MARKUP": "search",  # the text between an HTML block's tags
    "kbtools.serve.callout_frame._BOX_TAG": "sub",  # a raw HTML block
    "kbtools.serve.passes._BOX_TAG": "finditer",  # a raw HTML block
    "kbtools.build.xref._REF_LINK": "finditer",  # a chunk's text
    "kbtools.build.xref._HTML_LINK_OPEN": "search",  # a chunk's text
    "kbtools.hookconfig:repos:[ \\t]*(#.*)?$": "match",  # a line of a project's hook config
    "kbtools.hookconfig:[ \\t]*-([ \\t]|$)": "match",  # a line of a project's hook config
    "kbtools.earlier_hooks:\\\\(.)": "sub",  # a folder name as a hook's files pattern escapes it
    "kbtools.hookconfig:([\\w-]+)[ \\t]*:": "match",  # a line of a project's hook config
    # a one-line list of hook types in a project's hook config
    "kbtools.hookconfig:default_install_hook_types:[ \\t]*\\[[^\\]#]*\\][ \\t]*(#.*)?$": "match",
    "kbtools.check.content._OURS": "fullmatch",  # a line of a document
    "kbtools.check.content._SPLIT": "fullmatch",  # a line of a document
    "kbtools.check.content._THEIRS": "fullmatch",  # a line of a document
    "kbtools.check.yaml_syntax._KEY": "match",  # a front-matter line
    "kbtools.check.yaml_syntax._OPENS": "fullmatch",  # a front-matter value
    "kbtools.agents.draft_text.CJK": "search",
    "kbtools.agents.draft_text.BLANK_LINES": "match",  # the lines a draft's body opens with
    "kbtools.check.links:[\\\\/]": "split",  # a picture's path as an editor wrote it
    "kbtools.query.compounds._CODED": "fullmatch",  # one token of the question
    "kbtools.agents.draft_text:[^a-z0-9]+": "sub",
    "kbtools.check.fm_written:(?:^|\\s)#.*$": "sub",  # a front-matter line's value
    "kbtools.check.mend._HASHED": "fullmatch",  # a paragraph's line opening with `#`
    "kbtools.markdown.spaced._SPACED": "finditer",  # an inline run's text
    "kbtools.markdown.swallowed._MARKDOWN": "search",  # a line of an HTML block
    "kbtools.markdown.swallowed._RAW_KINDS": "match",  # an HTML block's content
    "kbtools.markdown.swallowed._PRE_OPEN": "search",  # a line of an HTML block
    "kbtools.markdown.swallowed._PRE_CLOSE": "search",  # a line of an HTML block
    "kbtools.ship.sourceurl._USERINFO": "sub",  # a git message naming a source (a server's text)
    "kbtools.errors._TERMINAL_CONTROL": "sub",  # text a command prints (knowledge, questions)
    "kbtools.render.table_csv.PLAIN_VALUE": "match",  # a table cell
    "kbtools.agents.docpath._DRIVE": "match",
    "kbtools.markdown.heading_paths._SEPARATOR": "split",
    "kbtools.markdown.heading_paths._SECTION_REF": "fullmatch",  # a heading path's part (MCP `read`)
    "kbtools.markdown.heading_paths._NUMBERED": "sub",  # a heading's text (normed)
    "kbtools.build.chunk_fine.IMAGE_MARKUP": "sub",
    "kbtools.build.chunk_fine.IMG_TAG": "match",  # a chunk line's `<img` onwards
    "kbtools.build.chunk_text.SENTENCE_END": "finditer",
    "kbtools.build.chunk_text.CLAUSE_END": "finditer",
    "kbtools.build.chunk_text.PROTECTED_INLINE": "finditer",
    "kbtools.build.chunk_text.QUOTED": "finditer",  # a paragraph's text
    "kbtools.build.xref._REF_NUM": "finditer",
    "kbtools.build.xref._REF_EN": "finditer",
    "kbtools.build.xref._REF_BEFORE": "search",  # on the 80 characters before a number
    "kbtools.build.xref._MD_LINK": "finditer",
    "kbtools.build.xref._SCHEME": "match",
    "kbtools.query.neighbours.MD_LINK": "search",  # a stored link's written text
    "kbtools.query.anchors.SENTENCE_END": "finditer",
    "kbtools.query.anchors.WHOLE_LINK": "sub",
    "kbtools.markdown.heading_paths._SECTION": "match",  # a heading's text
    "kbtools.check.fix.NEWLINE": "split",
    "kbtools.check.links.SCHEME": "match",
    "kbtools.check.links.DRIVE": "match",
    "kbtools.check.links.LOCAL_URL": "sub",
    "kbtools.serve.docview._FORMAT_TAG": "fullmatch",  # an inline HTML tag of a document
    "kbtools.corpus.FENCE": "match",
    "kbtools.corpus.END_FENCE": "match",
    "kbtools.decision.conditions._RE_CMP": "match",
    "kbtools.decision.conditions.RANGE_FORM": "match",
    "kbtools.decision.conditions._RE_NUMBER": "match",
    "kbtools.decision.column_units._RE_INPUT": "match",  # an input value (CLI, API, MCP)
    "kbtools.decision.conditions._RE_SUFFIX": "match",
    "kbtools.decision.column_units._RE_UNIT_TAIL": "fullmatch",  # a cell's last 40 characters
    "kbtools.decision.conditions.INTERVAL_FORM": "match",
    "kbtools.decision.conditions._RE_QUALIFIER": "fullmatch",  # from a cell's last (
    "kbtools.decision.conditions._RE_VAR_CMP": "match",
    "kbtools.decision.conditions._RE_VAR_BETWEEN": "match",
    "kbtools.decision.conditions.TOLERANCE_FORM": "match",  # a table cell
    "kbtools.decision.cell_text._RAISED_AFTER_DIGIT": "sub",  # a cell, an input, a question
    "kbtools.decision.conditions._CJK_NUMERAL": "sub",
    "kbtools.decision.model:[;；]": "split",
    "kbtools.decision.model:[,，、]": "split",
    "kbtools.index.tokenize._RUN": "finditer",
    "kbtools.index.tokenize._CJK_CHAR": "findall",
    "kbtools.index.tokenize._JIEBA_LINE": "match",  # a user dictionary's line
    "kbtools.index.tokenize._AMOUNT": "fullmatch",  # one Latin run of a text (latin_words)
    "kbtools.index.tokenize._RANGE": "fullmatch",
    "kbtools.index.tokenize._VERSION": "fullmatch",
    "kbtools.index.tokenize._DIMENSION": "fullmatch",
    "kbtools.index.tokenize._MEASURED": "fullmatch",
    "kbtools.index.tokenize._SERIES_FIRST": "fullmatch",
    "kbtools.index.tokenize._COMPOUND": "fullmatch",  # a Latin run with a hyphen
    "kbtools.index.subscripts.SUBSCRIPT": "finditer",  # a text with an underscore
    "kbtools.index.subscripts._STYLE": "sub",  # a subscript's braces (<= 72 characters)
    "kbtools.index.subscripts._PARTS": "fullmatch",
    "kbtools.index.tokenize._LOWER_OR_CJK": "search",  # a text with a stop word in capitals
    "kbtools.index.spellings._VALUE_SPELLING": "search",  # every text the tokenizer cuts (sub if found)
    "kbtools.index.spellings._UNIT_SIGN": "sub",  # a text that has one of _UNIT_FIRST
    "kbtools.index.spellings._UNIT_FIRST": "search",  # every text that is not ASCII
    "kbtools.index.spellings._TORQUE_FIRST": "search",  # every text the tokenizer cuts
    "kbtools.index.spellings._TORQUE": "sub",  # a text that has one of _TORQUE_FIRST
    "kbtools.index.spellings._WORD_RANGE": "sub",  # a text with 至 or 到 (search first)
    "kbtools.index.spellings._MYRIAD": "finditer",  # a text with 万 or 亿
    "kbtools.index.spellings._ANY_DASH": "search",  # every text not ASCII the tokenizer cuts
    "kbtools.index.spellings._CODE_DASH": "sub",  # a text that has one of _ANY_DASH
    "kbtools.query.english._LETTERS": "fullmatch",  # a question's Latin word
    "kbtools.query.framing.FRAMES": "sub",  # a question
    "kbtools.query.framing._HOW_MEASURE": "search",  # a question
    "kbtools.query.english._OUR": "finditer",  # a question's word of letters
    "kbtools.query.english._OR": "finditer",  # a question's word of letters
    "kbtools.query.english._RE_END": "search",  # a question's word of letters (sub if found)
    "kbtools.query.english._ER_END": "search",  # a question's word of letters (sub if found)
    "kbtools.query.english._ISE": "search",  # a question's word of letters (sub if found)
    "kbtools.query.english._IZE": "search",  # a question's word of letters (sub if found)
    "kbtools.query.english._AE_OE": "finditer",  # a question's word of letters
    "kbtools.query.english._NUMBER_LETTER": "finditer",  # a chunk's text
    "kbtools.index.tokenize._PH": "fullmatch",  # one Latin run of a text (latin_words)
    "kbtools.index.tokenize._NUMBER_BEFORE": "search",  # the 8 characters before a stop word
    "kbtools.index.tokenize:[0-9]+": "fullmatch",
    "kbtools.index.tokenize:[a-z]+": "fullmatch",
    "kbtools.markdown.doctree.ANNOTATION": "match",
    "kbtools.markdown.doctree.TASK_DONE": "match",
    "kbtools.markdown.mermaid._M_NODE": "match",
    "kbtools.markdown.mermaid._M_ARROW": "split",
    "kbtools.markdown.mermaid._M_TEXT_ARROW": "sub",
    "kbtools.markdown.mermaid._M_SEQ": "match",
    "kbtools.markdown.mermaid._M_STATE": "match",
    "kbtools.markdown.mermaid._M_SKIP": "match",
    "kbtools.markdown.mermaid:[\\[\\](){}]": "search",
    "kbtools.markdown.mermaid_kinds._ER_SYMBOLS": "search",  # a line of an ER diagram
    "kbtools.markdown.mermaid_kinds._ER_WORDS": "search",  # a line of an ER diagram
    "kbtools.markdown.wikitext.WIKILINK": "finditer",  # a run of text (masked, and as written)
    "kbtools.markdown.inline_tags.INLINE_TAG": "finditer",  # an inline run's text (Obsidian's tags)
    "kbtools.markdown.parser.BR": "match",
    "kbtools.markdown.parser.TRAILING_ID": "search",
    "kbtools.markdown.parser.CUSTOM_ID": "findall",
    "kbtools.markdown.parser.BLOCK_ID": "search",
    "kbtools.markdown.hidden.IMAGE_TAG": "match",
    "kbtools.markdown.hidden.BLOCK_TAG": "match",
    "kbtools.markdown.parser.RAW_OPEN": "fullmatch",  # one HTML tag
    "kbtools.markdown.parser:</script\\s*>": "search",  # an HTML block or inline run
    "kbtools.markdown.parser:</style\\s*>": "search",
    "kbtools.errors.INVISIBLE": "finditer",  # a document's text
    "kbtools.markdown.hidden.ENTITY": "finditer",  # the text of an HTML block
    "kbtools.markdown.parser.NOT_IN_SLUG": "sub",
    "kbtools.provenance:^([^<]*)<([^>]*)>": "match",
    "kbtools.engine.expr._ESCAPED": "sub",
    "kbtools.engine.milvus._NAME_UNSAFE": "sub",
    "kbtools.engine.address._MILVUS_NAME": "fullmatch",
    "kbtools.query.fusion._CODE": "match",
    "kbtools.query.fusion._NAME": "search",
    "kbtools.query.identifiers._NOTE": "match",  # a heading, after the identifier
    "kbtools.query.identifiers._PATH_WORD": "search",  # one identifier of the question
    "kbtools.query.calibration._VALUE": "fullmatch",  # one unknown question term
    "kbtools.query.qualified._EN_WORDS": "match",  # a compacted question, from a word's start
    "kbtools.query.quality:\\s+": "sub",
    "kbtools.query.quality.JSON_SPACE": "match",
    "kbtools.query.question._CONTROL": "sub",
    "kbtools.query.question._ANSI": "sub",
    "kbtools.query.question._SENTENCE_END": "split",  # a line of a long question
    "kbtools.query.question._NUMBER": "sub",
    "kbtools.query.filter_text._WHERE": "match",
    "kbtools.query.filter_text._KEY": "fullmatch",  # a front-matter key, written back
    "kbtools.render.latex_allow._TOKEN": "finditer",
    "kbtools.render.latex_allow._ENV_NAME": "match",
    "kbtools.render.latex_source.TAG_ARG": "match",  # after a formula's \tag
    "kbtools.render.latex_source._TEX_PIECE": "finditer",
    "kbtools.render.latex_spaces._TOKEN": "finditer",  # a formula's pieces and blanks
    "kbtools.render.latex_spaces._TAG": "finditer",  # a formula's \tag labels
    "kbtools.render.latex_structure._PIECE": "finditer",
    "kbtools.render.latex_fonts._PIECE": "finditer",  # a formula in a math alphabet
    "kbtools.render.latex_fonts._ENV": "finditer",  # a formula's environments
    "kbtools.render.latex_text._CEDILLA_PIECE": "match",  # the argument of \\c
    "kbtools.render.latex_args:~": "match",  # a placement's held tokens
    "kbtools.render.latex_structure._ENV_NAME": "match",  # after each \\begin and \\end
    "kbtools.render.latex_numbers._NUMBER_START": "match",  # a formula's number or dimension
    "kbtools.render.latex_args._CONTROL": "match",  # a command in an argument or column letters
    "kbtools.render.table_csv._UNSAFE": "sub",
    "kbtools.render.table_csv:[\\w\\u4e00-\\u9fff]": "match",
    "kbtools.fsutil._RAW_BREAKS": "sub",
    "kbtools.fsutil._SURROGATE": "sub",
    "kbtools.review.approve.EMAIL_PLAIN": "match",
    "kbtools.review.approve._VKEY": "match",
    "kbtools.review.verification.TRAILER": "match",
    "kbtools.review.verification.CO_AUTHOR": "match",
    "kbtools.review.verification:\\n\\s*\\n": "split",
    "kbtools.build.watch._NOISE_COPY": "fullmatch",  # a saved file's name
    "kbtools.docfiles._EDITOR_MARKDOWN": "fullmatch",  # a Markdown file's name
    "kbtools.decision.numerals._MAGNIFIED": "sub",  # a table cell, an input value
    "kbtools.decision.numerals._HALF_AFTER": "sub",  # a table cell, an input value
    "kbtools.decision.numerals._HALF_ALONE": "sub",  # a table cell, an input value
    "kbtools.decision.numerals._HALF_BEFORE": "finditer",  # a question
    "kbtools.decision.given._LATIN_MAGNITUDE": "sub",  # an input value
    "kbtools.decision.clock._CELL_TIME": "sub",  # a table cell, an input range
    "kbtools.decision.clock._SAID": "match",  # an input value
    "kbtools.decision.clock._SAID_IN": "finditer",  # a question
    "kbtools.decision.clock._UNIT_START": "match",  # a question, after a time's minutes
    "kbtools.decision.weekdays._ONE": "match",  # an input value
    "kbtools.decision.weekdays._ITEM": "match",  # a table cell, from each item on
    "kbtools.decision.weekdays._SEP": "match",  # a table cell, between its items
    "kbtools.decision.weekdays._SAID": "finditer",  # a question
    "kbtools.decision.cell_text._DECIMAL_COMMA": "match",  # a table cell, an input value
    "kbtools.decision.model._BOUND_LIKE": "match",  # a table cell (also sub)
    "kbtools.decision.weekdays._RELATIVE": "match",  # an input value
    "kbtools.decision.weekdays._NO_DAY": "match",  # an input value
    "kbtools.query.value_units._PER_FIRST": "finditer",  # a question
    "kbtools.query.value_units._RATE_STOP": "search",  # a question, 13 characters of it
    "kbtools.query.value_units._RATE_NUMBER": "match",  # a question, from a number on
    "kbtools.query.value_units._PER_COMMA": "match",  # a question, after a per-unit
    "kbtools.decision.given._BELOW_ZERO_SPAN": "sub",  # an input value, a question's span
    "kbtools.decision.numerals._SHARE_SAID": "finditer",  # a question, an input value
    "kbtools.decision.weekdays._EN_LEADS": "search",  # a question, 12 characters of it
    "kbtools.query.filter_text._COLON": "match",  # a --where item (CLI, API, MCP)
    "kbtools.query.filter_text._QUOTED": "split",  # a --where item (CLI, API, MCP)
    "kbtools.query.filter_bounds.ABOUT_MARK": "search",  # a --where item (CLI, API, MCP)
    "kbtools.query.filter_bounds._ABOUT": "match",  # a --where value
    "kbtools.query.naming:[a-z]+": "findall",  # a table's input names
    "kbtools.query.quantities.DAY_TIMES": "fullmatch",  # a question's word
    "kbtools.decision.numerals._PERCENT_SAID": "sub",  # a question, compacted
    "kbtools.query.naming.EN_PARTS_OF_DAY": "search",  # a table header, a question's words
    "kbtools.query.mentions._EN_TIME_BEFORE": "search",  # a question, before an input's name
    "kbtools.query.mentions._PLACE_LIST": "match",  # a question, after a value (bounded run)
    "kbtools.query.values._WHICH_AHEAD": "match",  # a question, after a number
    "kbtools.query.values._GROUP_AHEAD": "match",  # a question, after (or a space before) a number
    "kbtools.query.quoting._EN_NUMBERED_BEFORE": "search",  # 40 characters before a value
    "kbtools.query.differences._ZH_BEFORE": "search",  # 12 characters before a number
    "kbtools.query.differences._EN_BEFORE": "search",  # 12 characters before a number
    "kbtools.query.differences._EN_AFTER": "match",  # a question, after a number's unit
    "kbtools.query.differences._EN_SINCE": "match",  # a question, after a number's unit
    "kbtools.query.numbered_places._EN_PLACE_BEFORE": "search",  # 20 characters before a number
    "kbtools.decision.numerals._FRACTION_SAID": "fullmatch",  # an input value
    "kbtools.decision.numerals._FRACTION_SLASH": "fullmatch",  # an input value
    "kbtools.query.coverage._WORD": "search",  # a term of a pasted line
    "kbtools.query.coverage._CJK": "search",  # a term, and a chunk's text (a class, no nesting)
    "kbtools.query.codes._PARTS": "fullmatch",  # a question's word
    "kbtools.query.codes._SPACED": "finditer",  # the question (codes typed as two words)
    "kbtools.query.compounds.LATIN_RUN": "finditer",  # a question or a chunk's text (NFKC),
    # as the tokenizer's _RUN
    "kbtools.query.unknown._CJK_TERM": "search",  # a term of a question
    "kbtools.query.filter_checks._DATE": "fullmatch",  # a front-matter value
    "kbtools.query.filter_numbers._EXPONENT_FORM": "fullmatch",  # a front-matter value
    "kbtools.query.filter_numbers._WIDE": "search",  # a front-matter or --where value
    "kbtools.query.filter_kinds._VERSION": "fullmatch",  # a front-matter or --where value
    "kbtools.query.filter_kinds._PLAIN": "fullmatch",  # a front-matter or --where value
    "kbtools.query.filter_kinds._INSTANT": "fullmatch",  # a front-matter or --where value
    "kbtools.query.filter_kinds._CN_DATE": "fullmatch",  # a front-matter or --where value
    "kbtools.query.filter_kinds._YEAR": "fullmatch",  # a --where value
    "kbtools.query.filter_kinds._MONTH_SHAPE": "fullmatch",  # a front-matter value
    "kbtools.query.filter_numbers._QUANTITY": "fullmatch",  # a front-matter or --where value
    "kbtools.query.filter_numbers._NUMBER_AT": "match",  # a front-matter or --where value
    "kbtools.query.filter_commas.GROUPED": "match",  # a --where value (its order's number)
    "kbtools.query.filter_commas.DECIMAL_COMMA": "match",  # a --where value (its order's number)
    "kbtools.query.filter_numbers._MONEY_FIRST": "fullmatch",  # a --where value, a front-matter value
    "kbtools.query.filter_text._OR": "split",  # a --where value (its listed values)
    "kbtools.query.filter_text._SEPARATOR": "split",  # a --where value (its listed values)
    "kbtools.query.filter_kinds._EN_DATE": "fullmatch",  # a front-matter or --where value
    "kbtools.query.filter_numbers._BLANK_RUN": "sub",  # a --where quantity's unit words
    "kbtools.query.filter_numbers._GROUPED": "sub",  # a front-matter or --where quantity
    "kbtools.query.filter_numbers.PLACE_AFTER": "match",  # a front-matter or --where number
    "kbtools.query.filter_numbers._PLACED": "findall",  # the head of a PLACE_AFTER match
    "kbtools.query.filter_numbers._GROUPED_NUMBER": "fullmatch",  # a front-matter or --where number
    "kbtools.query.filter_text._IN_RANGE": "match",  # a --where item (a range in words)
    "kbtools.query.filter_commas.NUMBER_RUN": "finditer",  # a --where value (its numbers a comma apart)
    "kbtools.query.filter_numbers._LATIN_THEN_HAN": "search",  # a quantity's unit (a value's)
    "kbtools.query.filter_commas.GROUPED_AMOUNT": "match",  # a --where value (its listed values)
    "kbtools.config.RELEASE_TAG_RE": "match",  # a tag, a release directory, a --release value
    "kbtools.query.filter_kinds._DAY_MONTH": "fullmatch",  # a front-matter or --where value
    "kbtools.query.naming._EN_TIME_AFTER": "match",  # a question, after a value's unit
    "kbtools.query.naming._ZH_TIME_AFTER": "match",  # a question, after a value's unit
    "kbtools.query.naming._ZH_TIME_BETWEEN": "match",  # a question, after a value's unit
    "kbtools.agents.docpath._CITED": "fullmatch",  # an agent's document path
    "kbtools.agents.draft_checks._CITED_LINES": "finditer",  # a draft's body
    "kbtools.agents.draft_anchors._CITED_ANCHOR": "finditer",  # a draft's body
    "kbtools.agents.draft_anchors._NUMBER": "sub",  # a heading of a cited document
    "kbtools.agents.draft_anchors._LINES_ANCHOR": "fullmatch",  # a cited anchor in a draft
    "kbtools.agents.citation_text._SHOWN_LINES": "fullmatch",  # what follows " (line" in a doc
    "kbtools.markdown.formula_words._PIECE": "findall",  # a formula's LaTeX
    "kbtools.markdown.formula_words:\\s+": "sub",  # the words said of a formula
    "kbtools.markdown.formula_words:[\\w.′°%]*": "fullmatch",  # a piece of a formula's words
    "kbtools.gitobjects:^(?:error|fatal|hint): ": "sub",  # a line git printed (a ref name)
}
OTHER: dict[str, str] = {
    "kbtools.markdown.formula_words:\\\\[A-Za-z]+": "our own table of LaTeX commands (MATH_CHARS)",
    "kbtools.config._TOML_AT": "tomllib's error message (a fixed sentence and a position)",
    "kbtools.index.vectors:\\[(\\w+)\\]": "the kernel's transparent huge page setting",
    "kbtools.index.vectors:^MemAvailable:\\s+(\\d+) kB": "/proc/meminfo",
    "kbtools.serve.app.TOKEN_CHARS": "the operator's token file (at most 4096 bytes)",
    "kbtools.serve.marks:<dynamic>": "alternation of at most MAX_TERMS escaped literal "
                                       "question terms (highlighting)",
    "kbtools.query.values._OLD": "a fixed word matched once at the start of a clause",
    "kbtools.query.number_spans._NUMBER": "the question (at most 2,000 characters); one pass",
    "kbtools.query.compacted._THIN_GROUPS": "the question; one pass: a look-behind digit, one "
                                         "character class and a fixed-width look-ahead",
    "kbtools.decision.numerals._ROUGH_PAIR": "the question; one pass: an optional short "
                                             "prefix, a fixed alternation and one character",
    "kbtools.query.readings._DOT_THOUSANDS": "fullmatch of one number's digits as read "
                                             "(number_spans._NUMBER)",
    "kbtools.query.readings._GROUPED": "fullmatch of one number's digits as read "
                                       "(number_spans._NUMBER)",
    "kbtools.query.values._SPAN_AFTER": "a fixed alternation and one digit, matched at a "
                                        "number's end",
    "kbtools.query.values._SPAN_BEFORE": "at most 8 characters before a number",
    "kbtools.query.values._LIST_AFTER": "a fixed alternation and one digit, matched at a "
                                        "number's end",
    "kbtools.query.values._WORD_BEFORE": "at most 12 characters before a number",
    "kbtools.query.number_spans.CJK_NUMBER": "the question; one pass: a literal, a run of one "
                                       "character class and an optional literal-led run",
    "kbtools.query.numbered_places._PLACE_WORD": "matched at one position (bounded by the name it "
                                                 "leads) or over the few characters between a "
                                                 "name and its value; runs of one class each",
    "kbtools.query.numbered_places._EN_PLACE": "matched at one position or over the few "
                                               "characters between a name and its value; "
                                               "literal alternatives, optional literals",
    "kbtools.query.values._SPOKEN_TENTHS": "matched at a number's unit end; one character "
                                           "class and a look-ahead",
    "kbtools.query.number_spans.NUMERAL_RUN": "the at most 12 characters of the word before a "
                                         "number; one character class",
    "kbtools.query.places._VALUE_BEFORE": "the at most EN_REACH characters before a "
                                          "value",
    "kbtools.query.places._WORDS": "the at most EN_REACH characters before a value; one "
                                   "character class",
    "kbtools.query.wording._NUMERALS": "matched at the start of a word of at most PHRASE "
                                       "characters; one character class",
    "kbtools.query.values._NEGATED": "a lazy run of at most 4 characters, matched at a "
                                     "number's end",
    "kbtools.query.values.STOP_GAP": "a gap of at most NAME_GAP_LATIN characters",
    "kbtools.query.values._EN_BELOW_ZERO": "at most 24 characters before a number",
    "kbtools.query.values._EN_BOUND_BEFORE": "at most 24 characters before a number",
    "kbtools.query.values._EN_BOUND_AFTER": "at most AFTER_CHARS characters after a number (match)",
    "kbtools.query.values._EN_SPAN_AFTER": "at most AFTER_CHARS characters after a number (match)",
    "kbtools.query.values._EN_SPAN_BEFORE": "at most 16 characters before a number",
    "kbtools.query.values._EN_NEGATED": "at most AFTER_CHARS characters after a number (match)",
    "kbtools.query.values._EN_WORDS_BEFORE": "at most 32 characters before a number",
    "kbtools.query.values._UNIT_BEFORE": "at most 16 characters before a number's words",
    "kbtools.query.fillers.EN_NUMERALS": "at most 26 characters after an input's name (match)",
    "kbtools.query.inputs:<dynamic>": "an escaped literal input name found in the question",
    "kbtools.query.mentions:<dynamic>": "an escaped literal input name found in the question",
    "kbtools.query.codes:<dynamic>": "a code's escaped prefix forms and its digits between "
                                      "fixed look-arounds, searched in chunk texts (linear)",
    "kbtools.docfiles._BACKUP_MARKDOWN": "a file name (at most 255 bytes)",
    "kbtools.docfiles._CONFLICTED": "a file name (at most 255 bytes)",
    "kbtools.check.names._BACKUP_TAIL": "a file name (at most 255 bytes)",
    "kbtools.query.expansion:<dynamic>": "a code's escaped prefix, whitespace and its escaped "
                                          "digits between fixed look-arounds, or an escaped "
                                          "word and a look-ahead of at most two runs of spaces "
                                          "or tabs and letters (disjoint classes), searched in "
                                          "chunk texts (linear)",
    "kbtools.query.identifiers._CAMEL": "one token of the question",
    "kbtools.query.identifiers._CODE": "one identifier of the question (fullmatch)",
    "kbtools.query.identifiers._ARTICLE": "one identifier of the question (fullmatch)",
    "kbtools.query.identifiers._SECTION": "the question (at most 2,000 characters)",
    "kbtools.query.identifiers._TOKEN": "the question (at most 2,000 characters)",
    "kbtools.query.identifiers:<dynamic>": "an escaped literal identifier with fixed "
                                           "lookarounds, or a key line bounded to 40 characters",
    "kbtools.query.identifiers:[a-z]+:[a-z_]+": "one token of the question (fullmatch)",
    "kbtools.query.identifiers:\\d+(?:\\.\\d+)?[A-Za-z]{1,3}": "one token of the question",
    "kbtools.query.calibration:[-/]": "one unknown question term (a character class)",
    "kbtools.query.compounds:[a-z]": "a coded compound's name (a character class)",
    "kbtools.query.compounds:\\d": "a coded compound's name (a character class)",
    "kbtools.agents.draft_git:<dynamic>": "an escaped branch name or file stem and a fixed "
                                      "optional `-N` tail (fullmatch of one ref or file name)",
    "kbtools.corpus:first on line (\\d+)": "PyYAML's own error message",
    "kbtools.corpus._STREAM_END": "PyYAML's own error message",
    "kbtools.agents.stdio.SURROGATE_ESCAPE": "six fixed bytes, no repetition",
    "kbtools.agents.stdio.JSON_ESCAPE": "a backslash and one character or four hex "
                                             "digits: fixed length, no repetition",
    "kbtools.markdown.heading_paths._CJK_LETTER": "one character of a fixed class",
    "kbtools.agents.stdio.JSON_STRUCTURE": "one character of a fixed class, no repetition",
    "kbtools.embed.registry.NAME": "kb.toml embedding model names",
    "kbtools.markdown.locator:<dynamic>": "a link target's escaped form; only for targets of "
                                           "at most MAX_ESCAPED_SEARCH characters",
    "kbtools.index.tokenize:<dynamic>": "alternation of literal dictionary words (linear); "
                                        "fullmatch of one dictionary word",
    "kbtools.review.policy:<dynamic>": "kb.toml reviewer globs matched against paths",
    "kbtools.embed.use_tokens:<dynamic>": "zero-width cut points of a normalised line: one "
                                          "lookahead and one lookbehind of a single negated "
                                          "character class each, no repetition: linear",
    "kbtools.ship.git._TAG_RE": "release tags kbtools itself writes",
    "kbtools.query.log._AGO": "an operator's `kb log --since` value: anchored, at most six "
                              "digits, one unit letter, no nested repetition",
    "kbtools.render.formula:<any>": "dvisvgm's SVG output, after the sanitizer",
    "kbtools.render.svg_sanitize:<any>": "SVG written by dvisvgm (bounded attribute values)",
    "kbtools.render.tex_sandbox:<any>": "TeX's own log and the sandbox's markers",
}
