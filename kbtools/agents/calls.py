"""How `kb mcp` reads a ``tools/call`` and answers one that fails: the places where the MCP
SDK's own reading is replaced (`kbtools.agents.mcp_server` builds the server with them).

Every failure reaches the agent as one line saying why: a KbError as its message, arguments
that fail the tool's schema as the fields and what is wrong with them, anything unexpected
as its type (`tool_error`); a call the SDK cannot read at all (no tool name, arguments that
are no object) as the tool and what is wrong (`call_shape`), where the SDK said only
"Invalid request parameters". A string argument is the text the agent wrote (`text_kept`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence, Sized
from typing import TYPE_CHECKING, Any

from kbtools.agents.arguments import TABLE_INSTEAD, WHERE_ZH
from kbtools.agents.draft_text import CJK
from kbtools.agents.local_paths import unlocated
from kbtools.errors import API_FILTERS, KbError, one_line, surface_message

if TYPE_CHECKING:  # the SDK is loaded when a server is built, not on import
    from mcp.server.context import ServerMiddleware


# per tool, what to send instead of an argument it does not take but another tool does
INSTEAD = {"evaluate_table": TABLE_INSTEAD}


# the arguments whose refusals a call asked in Chinese (`asked_in_chinese`) gets in Chinese:
# a `where` names the knowledge's own keys and values, in its users' words; the others' are
# English, as /api/search says them
ZH_ARGUMENTS = frozenset({"where"})


def tool_error(exc: BaseException, schema: Mapping[str, Any] | None = None,
               zh: Collection[str] = ()) -> str:
    """The one line an agent reads when a tool fails because of `exc`; `schema`, the tool's
    input schema, says the range of a whole-number argument (`bound_error`). `zh`: the
    arguments whose refusals are said in Chinese (`ZH_ARGUMENTS` for a call asked in
    Chinese): their schema errors, and a `where` error `WHERE_ZH` words."""
    if isinstance(exc, KbError):  # a filter's names the tool's `where`, not `--where`
        if "where" in zh and exc.key in WHERE_ZH:
            return one_line(WHERE_ZH[exc.key].format(**exc.values))
        return one_line(surface_message(exc, API_FILTERS))
    errors = getattr(exc, "errors", None)
    if callable(errors):  # pydantic's ValidationError: the arguments do not fit the schema
        try:
            found = errors()
            parts = schema_errors(found, (schema or {}).get("properties", {}), zh)
            chinese = all(e["loc"][:1] and e["loc"][0] in zh for e in found)
        except Exception:  # a validation error of another shape: its type is enough
            parts, chinese = [], False
        if parts and chinese:  # each said in Chinese
            return one_line("参数无效：" + "；".join(parts))
        return one_line("invalid arguments: " + ("; ".join(parts) or type(exc).__name__))
    return one_line(f"internal error ({type(exc).__name__}: {exc}); the server log on stderr "
                    "has the details")


def asked_in_chinese(arguments: Mapping[str, Any] | None) -> frozenset[str]:
    """The arguments whose refusals a call's question says in Chinese: `ZH_ARGUMENTS` when
    it asks one (`query`, MCP `search`'s) holding CJK text, else none."""
    query = (arguments or {}).get("query")
    chinese = isinstance(query, str) and CJK.search(query) is not None
    return ZH_ARGUMENTS if chinese else frozenset()


# the JSON a member of a union type takes, by the name pydantic gives the member in an error's
# location (`list[constrained-str]`, `constrained-str`, `int` …)
MEMBER_KINDS = {"str": "a string", "int": "a whole number", "float": "a number",
                "bool": "a boolean"}
# those kinds, the JSON values a refusal names (`json_kind`) and what a flag takes, in Chinese
KINDS_ZH = {"a string": "字符串", "a whole number": "整数", "a number": "数字",
            "a boolean": "布尔值（true 或 false）", "true or false": "true 或 false",
            "a list": "列表", "an object": "对象", "null": "null"}


def zh_word(word: str) -> str:
    """`word` as it follows Chinese text: a space before it when it opens in Latin letters
    or digits (不能是 null, 必须是 1 到 100 之间的整数)."""
    return f" {word}" if word[:1].isascii() else word


def kinds_said(kinds: list[str], zh: bool) -> str:
    """Kinds a value may be, as "a string, a number or a list" (or in Chinese)."""
    if zh:
        kinds = [KINDS_ZH.get(k, k) for k in kinds]
        return "、".join(kinds[:-1]) + "或" + kinds[-1] if len(kinds) > 1 else kinds[0]
    return ", ".join(kinds[:-1]) + " or " + kinds[-1] if len(kinds) > 1 else kinds[0]


def expected(takes: str, given: Any, shown: str, zh: bool) -> str:
    """"expected `takes`, not `given`'s kind`shown`", or the same in Chinese."""
    if zh:
        return (f"应为{zh_word(KINDS_ZH.get(takes, takes))}，"
                f"不能是{zh_word(KINDS_ZH[json_kind(given)])}{shown}")
    return f"expected {takes}, not {json_kind(given)}{shown}"


def member_kind(tag: Any) -> str | None:
    """What JSON a union's member named `tag` takes; None when `tag` names no member (an
    argument's name, a list index, an object's key)."""
    if not isinstance(tag, str):
        return None
    if tag.startswith("list["):
        return "a list"
    if tag.startswith("dict["):
        return "an object"
    return MEMBER_KINDS.get(tag.removeprefix("constrained-").removeprefix("strict-"))


# pydantic's errors for a whole-number argument given no whole number or one out of range
NUMBER_ERRORS = {"int_type", "int_parsing", "int_from_float", "greater_than_equal",
                 "less_than_equal", "greater_than", "less_than"}
SHOWN_INPUT = 40  # characters of a refused value an error shows


def shown_value(value: Any) -> str:
    """A refused argument value as its JSON, cut at `SHOWN_INPUT` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = json_kind(value)
    return text if len(text) <= SHOWN_INPUT else text[:SHOWN_INPUT - 1] + "…"


def bound_error(name: str, error: Mapping[str, Any], prop: Mapping[str, Any],
                whole: bool, zh: bool = False) -> str | None:
    """One of pydantic's errors at `name` (an argument, `whole`, or a value inside one) of
    the argument whose input schema is `prop`, in our words as the CLI and /api say them,
    naming what it takes and what was given: a whole number out of range or of another
    kind ("k: must be a whole number from 1 to 100, not 0"), a text or a list over its
    length ("query: at most 10000 characters, not 10001"). None for any other error.
    pydantic's words ("Input should be greater than or equal to 1") named neither. `zh`:
    in Chinese."""
    kind, ctx = error.get("type"), error.get("ctx") or {}
    if kind in NUMBER_ERRORS and whole and json_types(dict(prop)) - {"null"} == {"integer"}:
        part = next(p for p in [prop, *prop.get("anyOf", [])] if p.get("type") == "integer")
        lo, hi = part.get("minimum"), part.get("maximum")
        shown = shown_value(error.get("input"))
        if zh:
            takes = (f"{lo} 到 {hi} 之间的整数" if lo is not None and hi is not None
                     else f"不小于 {lo} 的整数" if lo is not None
                     else f"不大于 {hi} 的整数" if hi is not None else "整数")
            return f"{name}：必须是{zh_word(takes)}，不能是 {shown}"
        takes = (f"a whole number from {lo} to {hi}" if lo is not None and hi is not None
                 else f"a whole number, {lo} or more" if lo is not None
                 else f"a whole number, {hi} or less" if hi is not None else "a whole number")
        return f"{name}: must be {takes}, not {shown}"
    if kind == "string_too_long" and isinstance(error.get("input"), str):
        if zh:
            return f"{name}：最多 {ctx.get('max_length')} 个字符，不能是 {len(error['input'])} 个"
        return (f"{name}: at most {ctx.get('max_length')} characters, not "
                f"{len(error['input'])}")
    if kind == "too_long":  # a dict's actual_length is None: pydantic stopped counting
        given = error.get("input")
        count = ctx.get("actual_length") or (len(given) if isinstance(given, Sized) else None)
        if zh:
            return (f"{name}：最多 {ctx.get('max_length')} 项"
                    + (f"，不能是 {count} 项" if count is not None else ""))
        items = "entries" if isinstance(given, Mapping) else "items"
        return (f"{name}: at most {ctx.get('max_length')} {items}"
                + (f", not {count}" if count is not None else ""))
    return None


# pydantic's errors for a value of another JSON type than the argument takes, and what it
# takes in our words (a true/false argument also takes the words `arguments.FLAG_WORDS` lists)
TYPE_ERRORS = {"string_type": "a string", "dict_type": "an object", "list_type": "a list",
               "bool_type": "true or false", "bool_parsing": "true or false",
               "model_type": "an object"}


def type_said(error: Mapping[str, Any], zh: bool = False) -> str | None:
    """One of pydantic's errors of a value of the wrong type as what the argument takes and
    what it was given ("expected a string, not a number (123)"), as an argument of several
    types is said; pydantic's "Input should be a valid string" named neither the value
    nor its type. None for any other error. `zh`: in Chinese."""
    takes = TYPE_ERRORS.get(str(error.get("type")))
    if error.get("type") == "literal_error":  # one of a few words ('first' or 'all')
        takes = (error.get("ctx") or {}).get("expected")
    if takes is None:
        return None
    given = error.get("input")
    shown = f"（{shown_value(given)}）" if zh else f" ({shown_value(given)})"
    return expected(str(takes), given, shown if isinstance(given, (str, int, float)) else "", zh)


def schema_errors(errors: list[Any], properties: Mapping[str, Any] | None = None,
                  zh: Collection[str] = ()) -> list[str]:
    """pydantic's errors of a call's arguments as "argument: what is wrong" lines. An
    argument of several types (a `where` that is a string or a list) failed once per type,
    each located by the type's internal name (`where.list[constrained-str]: Input should be
    a valid list; where.constrained-str: …`): such an argument given a value of none of its
    types is said as the JSON types it takes and the one it got; given a value of one of
    them that failed inside or a bound, as that type's errors alone, without the name.
    An argument's bound or length (by its schema in `properties`) is said in our words
    (`bound_error`), once, without the other members' errors of the argument it lies in.
    `zh`: the arguments whose lines are in Chinese (pydantic's own words, for an error we
    do not word, stay)."""
    parts: list[str] = []
    unions: dict[tuple[Any, ...], list[tuple[str, tuple[Any, ...], Any]]] = {}
    bounded: dict[tuple[Any, ...], str] = {}  # argument (and key) -> `bound_error`'s line
    for e in errors:
        named = tuple(p for p in e["loc"] if member_kind(p) is None)  # the argument, its key …
        prop = (properties or {}).get(named[0]) if named else None
        said = bound_error(".".join(map(str, named)), e, prop, len(named) == 1,
                           bool(named) and named[0] in zh) \
            if isinstance(prop, Mapping) else None
        if said is not None:  # the other members' errors of the argument are not said
            bounded.setdefault(named, said)
    parts += bounded.values()
    for e in errors:
        loc = tuple(e["loc"])
        named = tuple(p for p in loc if member_kind(p) is None)
        chinese = bool(named) and named[0] in zh
        if any(b[:len(named)] == named for b in bounded):  # a bound inside it, or on it: a
            continue  # list's heading over its length is not also "expected a string"
        at = max((n for n, p in enumerate(loc) if member_kind(p) is not None), default=None)
        if at is None:
            parts.append(f"{'.'.join(map(str, loc)) or 'arguments'}{'：' if chinese else ': '}"
                         f"{type_said(e, chinese) or e['msg']}")
            continue
        mismatch = str(e.get("type", "")).endswith("_type") and at == len(loc) - 1
        before = tuple(p for p in loc[:at] if member_kind(p) is None)  # the innermost union's
        unions.setdefault(before, []).append((  # value: `where.category` in a `where` object
            "" if mismatch else type_said(e, chinese) or e["msg"], before + loc[at + 1:],
            (loc[at], e.get("input"))))
    for where, failed in unions.items():
        if any(len(inner) > len(where) and inner[:len(where)] == where for inner in unions):
            continue  # a member took the value and a union inside it failed: that is said
        name = ".".join(map(str, where)) or "arguments"
        chinese = bool(where) and where[0] in zh
        inside = [f"{'.'.join(map(str, loc))}{'：' if chinese else ': '}{msg}"
                  for msg, loc, _ in failed if msg]
        if inside:
            parts += list(dict.fromkeys(inside))
            continue
        kinds = list(dict.fromkeys(str(member_kind(tag)) for _, _, (tag, _) in failed))
        parts.append(f"{name}{'：' if chinese else ': '}"
                     + expected(kinds_said(kinds, chinese), failed[0][2][1], "", chinese))
    return parts


def tool_exception(exc: BaseException) -> Exception:
    """The SDK's ToolError saying `tool_error(exc)`: what a tool raises for the agent."""
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(tool_error(exc))


def one_line_errors(base: type, parameters: dict[str, tuple[str, ...]],
                     optional: dict[str, dict[str, bool]],
                     local: Sequence[tuple[str, str]] = ()) -> type:
    """`base` (the SDK's MCPServer) with every failed call reported as one line that says why:
    the SDK's own messages for arguments that fail the schema span several lines, and for a
    crash say only "Error executing tool <name>". An argument a tool does not take (by
    `parameters`: tool name → argument names) is refused: the SDK would drop it silently.
    A null given for an argument the tool may go without (`optional`: tool name → those
    names, each with whether it takes no text) is that argument left out, as the JSON API
    reads it, and so is an empty string given for one that takes no text (a number): `k:
    null` and `k: ""`, which agents send for an optional argument they do not set, were
    refused as "not a valid integer" where /api/search returns its 5 results. An absolute
    path of a `local` place (`local_paths.places`) is said by the place's name."""
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.shared.exceptions import MCPError

    class Server(base):  # type: ignore[misc]
        async def call_tool(self, name: str, arguments: dict[str, Any],
                            context: Any = None) -> Any:
            known = parameters.get(name)
            if known is None:  # the SDK said "Unknown tool: x", not which tools there are
                raise ToolError(one_line(f"Unknown tool: {name!r}; the tools: "
                                         f"{', '.join(parameters)}"))
            unknown = sorted(set(arguments or {}) - set(known or ()))
            if known is not None and unknown:  # the SDK drops them: `heading` read the whole doc
                hint = INSTEAD.get(name, {}).get(unknown[0])  # a field of a result or of `read`
                raise ToolError(one_line(
                    f"Error executing tool {name}: invalid arguments: {unknown[0]}: unknown "
                    f"argument ({name} takes {', '.join(known)})" + (f"; {hint}" if hint else "")))
            left = optional.get(name, {})
            arguments = {k: v for k, v in (arguments or {}).items()
                         if not (k in left and (v is None or v == "" and left[k]))}
            try:
                return await super().call_tool(name, arguments, context)
            except MCPError:
                raise
            except ToolError as exc:  # UnexpectedToolError too: the type tells the SDK to log
                cause = exc.__cause__
                if cause is None or isinstance(cause, ToolError):  # the text is already a reason
                    raise type(exc)(unlocated(one_line(str(exc)), local)) from cause
                schema = next((t.input_schema for t in await self.list_tools()
                               if t.name == name), None)
                said = tool_error(cause, schema, asked_in_chinese(arguments))
                raise type(exc)(unlocated(f"Error executing tool {name}: {said}", local)
                                ) from cause

    return Server


def json_types(schema: dict[str, Any]) -> set[str]:
    """The JSON types a parameter's input schema takes (its own `type` and its `anyOf`'s)."""
    found: set[str] = set()
    for part in [schema, *schema.get("anyOf", [])]:
        kind = part.get("type")
        found.update([kind] if isinstance(kind, str) else kind or [])
    return found


def text_kept(tool: Any) -> Any:
    """`tool` (the SDK's Tool) with each string argument read as the agent wrote it. The SDK
    reads a string given to any parameter not typed plain `str` as JSON first, and keeps
    what that gives unless it is a string or a number: "null" was no argument at all (a
    draft's location "null" was refused with "pass the location argument", its author
    "null" became the Git user; a heading_path, `where` or table "null" read the whole
    document, filtered nothing or took the first table, without a word) and '["a"]' given
    as a location a list refused as "not a valid string". Now a string stays the text it
    is for a parameter that takes text, and becomes what its JSON says only when that is a
    list or object the parameter takes (heading_path '["A", "B"]', inputs '{"温度": 18}')
    or when the parameter takes no text. "null" stays text for every parameter: given to
    `verified_only` (or `k`, `days`) it was no argument at all where /api/search refuses it
    as no true/false value; JSON's null (no string) is an argument left out on both."""
    from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata

    if not callable(getattr(FuncMetadata, "pre_parse_json", None)):
        return tool  # an SDK that reads arguments otherwise: its own reading stands
    takes = {name: json_types(prop)
             for name, prop in tool.parameters.get("properties", {}).items()}

    def as_written(name: str, given: Any, parsed: Any) -> bool:
        kinds = takes.get(name, set())
        if not isinstance(given, str) or parsed is given:
            return False
        if parsed is None:  # the text "null" is no null: a flag or a number refuses it
            return True
        if "string" not in kinds:
            return False
        return not (isinstance(parsed, list) and "array" in kinds
                    or isinstance(parsed, dict) and "object" in kinds)

    class Arguments(FuncMetadata):
        def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
            parsed = super().pre_parse_json(data)
            return {k: data[k] if as_written(k, data[k], v) else v for k, v in parsed.items()}

    return tool.model_copy(update={"fn_metadata": Arguments(**dict(tool.fn_metadata))})


def call_shape(parameters: Mapping[str, tuple[str, ...]]) -> ServerMiddleware[Any]:
    """A server middleware (the SDK's `ServerMiddleware`) that refuses a ``tools/call`` the
    SDK cannot read with JSON-RPC's "invalid params" and one line naming the tool and what
    is wrong (`call_problem`); the SDK's own answer was "Invalid request parameters", with
    nothing to say which, for a missing tool name and for arguments sent as a list or a
    string alike, and for any request sent before `initialize` (now said as that).
    `parameters`: tool name → the argument names it takes."""
    from mcp.shared.exceptions import MCPError
    from mcp_types.jsonrpc import INVALID_PARAMS

    async def check(ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        problem = call_problem(ctx.params, parameters) if ctx.method == "tools/call" else None
        if problem is not None:
            raise MCPError(code=INVALID_PARAMS, message=problem)
        try:
            return await call_next(ctx)
        except MCPError as exc:
            if exc.code == INVALID_PARAMS and not exc.error.data and ctx.method != "initialize" \
                    and getattr(ctx.session, "client_params", False) is None:
                # the SDK's answer to a request before the handshake, the same "Invalid
                # request parameters" as for wrong arguments: say what is missing
                raise MCPError(code=INVALID_PARAMS, message=one_line(
                    f"{ctx.method} before the session is initialized: send initialize "
                    "first, then notifications/initialized")) from None
            raise

    return check


def call_problem(params: Any, parameters: Mapping[str, tuple[str, ...]]) -> str | None:
    """What is wrong with a ``tools/call``'s `params` (None: nothing the SDK would refuse
    without saying why). Params that are no object never get here (`stdio.refusal`)."""
    if not isinstance(params, Mapping):
        return None
    tools = ", ".join(parameters)
    name = params.get("name")
    if name is None:
        return one_line(f"invalid tools/call: no 'name' (the tool to call: {tools})")
    if not isinstance(name, str):
        return one_line(f"invalid tools/call: 'name' is {json_kind(name)}, not the name of a "
                        f"tool ({tools})")
    arguments = params.get("arguments")
    if arguments is not None and not isinstance(arguments, Mapping):
        takes = parameters.get(name)
        said = (f"{name} takes {', '.join(takes) or 'no arguments'}" if takes is not None
                else f"no tool {name!r}; the tools: {tools}")
        return one_line(f"invalid tools/call of {name}: 'arguments' is {json_kind(arguments)}, "
                        f"not an object of argument: value ({said})")
    return None


def json_kind(value: Any) -> str:
    """What JSON value `value` is, as a message names it ("a list", "a number")."""
    if isinstance(value, bool):
        return "a boolean"
    kinds = ((str, "a string"), ((int, float), "a number"), (list, "a list"),
             (Mapping, "an object"))
    return next((said for kind, said in kinds if isinstance(value, kind)), "null")
