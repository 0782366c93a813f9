"""The grammar of a call: the model can only write a JSON call to one of the entry's candidates.

Per entry we build a JSON schema (anyOf over candidates: ``tool_name`` is a const, and
``parameters`` an object with that tool's required parameters and, optionally, its other
parameters), compile it with xgrammar for the model's tokenizer, and bound the length of its
strings and numbers in the grammar text. ``petool.decoding`` runs the model under it.
"""

from __future__ import annotations

import json
import os

from petool.schema import Tool

MAX_STRING_CHARS = 128
"""Longest string value the grammar allows (well above the real gold values' longest: docs/experiments.md)."""

SCALAR_VALUE = {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]}
"""Values of a parameter whose declared type says nothing usable."""


def value_schema(param_type: str) -> dict:
    """The JSON values a parameter of this ToolBench type may take.

    Scoring is type-sensitive (5 != "5") and small models often quote numbers, so the declared
    type decides: on the real dev entries NUMBER golds are nearly always numbers and STRING/ENUM
    golds strings (docs/experiments.md), so following the declaration wins far more than it
    loses. Types outside these (DATE, ARRAY, OBJECT, GEOPOINT...) are written as strings, as the
    real golds write them; an empty or unknown type allows any scalar.

    Example:
        >>> value_schema("NUMBER"), value_schema("DATE (YYYY-MM-DD)"), value_schema("")
        ({'type': 'number'}, {'type': 'string'}, {'anyOf': [{'type': 'string'}, {'type': 'number'}, {'type': 'boolean'}]})
    """
    kind = (param_type or "").strip().upper()
    if kind.startswith(("NUMBER", "INTEGER", "INT", "FLOAT")):
        return {"type": "number"}
    if kind.startswith("BOOL"):
        return {"type": "boolean"}
    if kind.startswith(("STRING", "ENUM", "DATE", "ARRAY", "OBJECT", "GEOPOINT", "BINARY", "TIME")):
        return {"type": "string"}
    return SCALAR_VALUE


def call_schema(candidates: list[Tool], echoed: dict[str, dict] | None = None) -> dict:
    """JSON schema of a call to one of ``candidates``: parameters in declared order, the tool's
    required ones always present, values of their declared type (``value_schema``).

    ``echoed`` (``{tool name: {parameter: value}}``, ``query.echoed_values``) lets those
    parameters also take their value's own JSON type: the user's earlier call for the same
    instruction wrote it so (``"start": "1"`` under NUMBER), and so does the ground truth.

    Required parameters are required because the benchmark's calls always carry them (every
    real dev gold does) and a small model otherwise stops early, leaving one out
    (docs/experiments.md).

    Example:
        >>> s = call_schema([Tool("<A>.<B>.<c>", required_parameters=[])])
        >>> s["anyOf"][0]["properties"]["tool_name"]
        {'const': '<A>.<B>.<c>'}
    """
    if not candidates:
        raise ValueError("cannot build a call grammar for an entry with no candidate tools")
    options = []
    for tool in candidates:
        types: dict[str, str] = {}
        for param in tool.required_parameters + tool.optional_parameters:
            types.setdefault(param.name, param.type)  # a repeated name keeps its first declaration
        required = list(dict.fromkeys(p.name for p in tool.required_parameters))
        values = {n: value_schema(t) for n, t in types.items()}
        for name, value in ((echoed or {}).get(tool.name) or {}).items():
            if name in values and (kind := _json_type(value)) and not _allows(values[name], kind):
                values[name] = {"anyOf": [values[name], {"type": kind}]}
        options.append(
            {
                "type": "object",
                "properties": {
                    "tool_name": {"const": tool.name},
                    "parameters": {
                        "type": "object",
                        "properties": values,
                        **({"required": required} if required else {}),
                        "additionalProperties": False,
                    },
                },
                "required": ["tool_name", "parameters"],
                "additionalProperties": False,
            }
        )
    return {"anyOf": options}


def _json_type(value) -> str | None:
    """The JSON schema type of a scalar value (None for lists, objects and null)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "string" if isinstance(value, str) else None


def _allows(schema: dict, kind: str) -> bool:
    return schema.get("type") == kind or any(option.get("type") == kind for option in schema.get("anyOf", []))


class CallGrammar:
    """Compiles per-entry call grammars for one tokenizer (compiling the tokenizer info once).

    Args:
        tokenizer: a Hugging Face tokenizer.
        vocab_size: the model's logits width (``config.vocab_size``), which may exceed the
            tokenizer's length when the embedding is padded.
    """

    def __init__(self, tokenizer, vocab_size: int | None = None):
        import xgrammar as xgr

        self.tokenizer = tokenizer
        self.vocab_size = vocab_size or len(tokenizer)
        info = xgr.TokenizerInfo.from_huggingface(tokenizer, vocab_size=self.vocab_size)
        self._compiled: dict = {}
        self.compiler = xgr.GrammarCompiler(info, max_threads=max(1, min(8, os.cpu_count() or 1)))

    def matcher(self, candidates: list[Tool], echoed: dict[str, dict] | None = None):
        """A fresh grammar matcher for one generation over ``candidates`` (``echoed``: see ``call_schema``)."""
        import xgrammar as xgr

        schema = json.dumps(call_schema(candidates, echoed), ensure_ascii=False)
        compiled = self._compiled.pop(schema, None)
        if compiled is None:
            # any_whitespace=False: the output is json.dumps' one-line layout, as in the SFT data.
            grammar = xgr.Grammar.from_json_schema(schema, any_whitespace=False, strict_mode=True)
            compiled = self.compiler.compile_grammar(xgr.Grammar.from_ebnf(bound_values(str(grammar))))
        self._compiled[schema] = compiled  # most recent last; one entry is asked for p, r, c, base, adapter
        while len(self._compiled) > 32:
            self._compiled.pop(next(iter(self._compiled)))
        return xgr.GrammarMatcher(compiled, terminate_without_stop_token=True)


BOUNDED_RULES = {
    # strings: at most MAX_STRING_CHARS characters (escapes allowed, control characters not), and
    # no "}": the authors' evaluator cuts a call at its first "}}" (docs/petoolbench.md §5), so a value
    # holding one would be scored as broken JSON; no string value of the real dev golds and
    # histories holds a "}" (tool names and keys are literals, not this rule)
    'basic_string ::= (("\\"" basic_string_sub))': f'basic_string ::= (("\\"" basic_string_char{{0, {MAX_STRING_CHARS}}} "\\""))\n'
    'basic_string_char ::= (([^\\0-\\x1f\\"\\\\\\r\\n}]) | ("\\\\" basic_escape))',
    # numbers: integer part at most 15 digits; fraction and exponent at most 8
    "([1-9] [0-9]*)": "([1-9] [0-9]{0,14})",
    "basic_number_digits{1, -1}": "basic_number_digits{1, 8}",
}


def bound_values(ebnf: str) -> str:
    """Bound the length of JSON strings and numbers in xgrammar's EBNF for a JSON schema.

    A small model, once inside a value, can repeat a character until the budget is spent.
    xgrammar 0.2.8 ignores ``maximum``, and its ``maxLength`` string admits control characters
    (invalid JSON) while a ``pattern`` string makes compiling far slower; so the bounds
    go into the grammar text. Raises ValueError if a rule is not there (another xgrammar version:
    update BOUNDED_RULES).
    """
    for old, new in BOUNDED_RULES.items():
        if old not in ebnf:
            raise ValueError(f"xgrammar's JSON rule {old!r} not found; update petool.call_grammar.BOUNDED_RULES")
        ebnf = ebnf.replace(old, new)
    return ebnf
