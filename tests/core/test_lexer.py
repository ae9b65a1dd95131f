"""The SPARQL lexer against the SPARQL 1.1 grammar's terminals (Query Language, section 19.8).

Expected token lists are worked out from the grammar's productions by hand; each case names
the production it pins.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from craftrdf.core.errors import QueryError
from craftrdf.core.lexer import match_bracket, tokenize


def kinds(text: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in tokenize(text, comments=True)]


def test_each_terminal_kind():
    assert kinds('?s <http://x> "a" 12 ex:p # c') == [
        ("var", "?s"),
        ("iri", "<http://x>"),
        ("string", '"a"'),
        ("number", "12"),
        ("pname", "ex:p"),
        ("comment", "# c"),
    ]
    assert kinds("_:b1 $v @en-GB a") == [("bnode", "_:b1"), ("var", "$v"), ("langtag", "@en-GB"), ("keyword", "a")]


def test_less_than_is_not_an_iri():
    # IRIREF cannot hold '?' followed by nothing closing; '<?b' never reaches '>'
    assert [t.text for t in tokenize("?a<?b")] == ["?a", "<", "?b"]
    assert [t.text for t in tokenize('?a<xsd:integer("1")')] == ["?a", "<", "xsd:integer", "(", '"1"', ")"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # PN_LOCAL_ESC (production 173): an escaped '#' or quote stays inside the prefixed name
        ("ex:p\\#q SERVICE", [("pname", "ex:p\\#q"), ("keyword", "SERVICE")]),
        ("ex:p\\'q LOAD", [("pname", "ex:p\\'q"), ("keyword", "LOAD")]),
        # PERCENT (171)
        ("ex:a%20b", [("pname", "ex:a%20b")]),
        # PN_LOCAL may not end with '.', so the dot is the triple terminator
        ("ex:a.b.", [("pname", "ex:a.b"), ("punct", ".")]),
        # PNAME_NS alone (140)
        ("ex: :x", [("pname", "ex:"), ("pname", ":x")]),
    ],
)
def test_prefixed_names(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # DECIMAL needs a digit after '.', DOUBLE an exponent: '1.SERVICE' is INTEGER, '.', keyword
        ("1.SERVICE", [("number", "1"), ("punct", "."), ("keyword", "SERVICE")]),
        ("1.e5", [("number", "1.e5")]),
        ("1.5e-3 .5 7", [("number", "1.5e-3"), ("number", ".5"), ("number", "7")]),
        ("1.ex:p", [("number", "1"), ("punct", "."), ("pname", "ex:p")]),
    ],
)
def test_numbers(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"a\\"b" x', [("string", '"a\\"b"'), ("keyword", "x")]),
        ("'a # b' x", [("string", "'a # b'"), ("keyword", "x")]),
        ('"""a "" b""" x', [("string", '"""a "" b"""'), ("keyword", "x")]),
        ("'''it's''' x", [("string", "'''it's'''"), ("keyword", "x")]),
        ('"\\u0022" x', [("string", '"\\u0022"'), ("keyword", "x")]),
    ],
)
def test_strings(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize("text", ['"open', "'open\n'", "SELECT \\", "a ~ b", '"a\\qb"'])
def test_what_no_terminal_reads_is_an_error(text):
    with pytest.raises(QueryError, match="SPARQL syntax error"):
        list(tokenize(text))


def test_match_bracket():
    toks = list(tokenize("{ ( [ ] ) { } } x"))
    assert match_bracket(toks, 0) == 7
    assert match_bracket(toks, 1) == 4
    with pytest.raises(QueryError):
        match_bracket(list(tokenize("{ {")), 0)


@given(st.text(alphabet=" \n\"'\\#<>{}()[]?$:._-@%aSE1e", max_size=40))
def test_tokens_cover_the_text(text):
    """Whatever the lexer accepts, its tokens (with comments) and white space are the whole text, in order."""
    try:
        toks = list(tokenize(text, comments=True))
    except QueryError:
        return
    pos = 0
    for t in toks:
        assert text[pos : t.start].strip(" \n") == ""
        assert text[t.start : t.end] == t.text
        pos = t.end
    assert text[pos:].strip(" \n") == ""
