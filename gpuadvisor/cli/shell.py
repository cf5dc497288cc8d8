"""``gpuadvisor completion bash|zsh|fish`` and ``gpuadvisor man``: shell completion scripts
and a man page, both written from the argument parser itself, so they list exactly the verbs
and flags the program takes (a flag added to a verb appears in both without another edit).

Install, for example::

    gpuadvisor completion bash > ~/.local/share/bash-completion/completions/gpuadvisor
    gpuadvisor completion zsh  > ~/.zfunc/_gpuadvisor        # with fpath+=(~/.zfunc)
    gpuadvisor completion fish > ~/.config/fish/completions/gpuadvisor.fish
    gpuadvisor man > ~/.local/share/man/man1/gpuadvisor.1
"""

from __future__ import annotations

import argparse
import datetime as _dt
import re
from dataclasses import dataclass

SHELLS = ("bash", "zsh", "fish")


@dataclass(frozen=True)
class Flag:
    """One option of a verb: its spellings, help, choices and whether it takes a value."""

    names: tuple[str, ...]
    help: str
    choices: tuple[str, ...]
    takes_value: bool
    metavar: str


@dataclass(frozen=True)
class Verb:
    """One verb (or sub-verb, joined by a space: ``catalog list``) and its flags."""

    name: str
    help: str
    flags: tuple[Flag, ...]
    description: str
    epilog: str


def add_parser(verbs) -> None:
    """Register ``completion`` and ``man``."""
    comp = verbs.add_parser("completion", help="print a shell completion script",
                            description="Print a completion script for bash, zsh or fish "
                                        "(see 'gpuadvisor man' for where to put it).")
    comp.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    verbs.add_parser("man", help="print the manual page (roff)",
                     description="Print the gpuadvisor(1) manual page in roff, written from "
                                 "the argument parser: 'gpuadvisor man | man -l -'.")


def _help(action: argparse.Action) -> str:
    text = action.help or ""
    if text == argparse.SUPPRESS:
        return ""
    if "%(default)" in text:
        text = text.replace("%(default)s", str(action.default))
    return " ".join(text.split())


def _flag(action: argparse.Action) -> Flag:
    choices = tuple(str(c) for c in action.choices) if action.choices else ()
    return Flag(names=tuple(action.option_strings), help=_help(action), choices=choices,
                takes_value=action.nargs != 0,
                metavar=str(action.metavar or action.dest.upper()))


def _subparsers(parser: argparse.ArgumentParser):
    for action in parser._actions:  # argparse keeps its actions here; no public accessor
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, helps.get(name) or "", sub


def verbs_of(parser: argparse.ArgumentParser, prefix: str = "") -> list[Verb]:
    """Every verb of ``parser`` (depth first) with its own flags."""
    out = []
    for name, help_text, sub in _subparsers(parser):
        full = f"{prefix}{name}"
        flags = tuple(_flag(a) for a in sub._actions
                      if a.option_strings and a.help != argparse.SUPPRESS)
        out.append(Verb(full, " ".join(help_text.split()), flags, sub.description or "",
                        sub.epilog or ""))
        out.extend(verbs_of(sub, prefix=f"{full} "))
    return out


def top_flags(parser: argparse.ArgumentParser) -> tuple[Flag, ...]:
    """The program's own flags (``--version``, ``--self-test``, ``-h``)."""
    return tuple(_flag(a) for a in parser._actions if a.option_strings)


# --------------------------------------------------------------------------- bash
def bash_script(parser: argparse.ArgumentParser) -> str:
    """A bash completion function: verbs after ``gpuadvisor``, each verb's flags, and the
    choices of a flag that has them."""
    verbs = verbs_of(parser)
    top = [v.name for v in verbs if " " not in v.name]
    lines = ["# bash completion for gpuadvisor (generated: gpuadvisor completion bash)",
             "_gpuadvisor() {",
             "    local cur prev verb i",
             "    cur=\"${COMP_WORDS[COMP_CWORD]}\"",
             "    prev=\"${COMP_WORDS[COMP_CWORD-1]}\"",
             "    verb=\"\"",
             "    for ((i = 1; i < COMP_CWORD; i++)); do",
             "        case \"${COMP_WORDS[i]}\" in",
             "            -*) ;;",
             "            *) if [[ -z \"$verb\" ]]; then verb=\"${COMP_WORDS[i]}\"; "
             "elif [[ \"$verb\" != *\" \"* ]]; then verb=\"$verb ${COMP_WORDS[i]}\"; fi ;;",
             "        esac",
             "    done",
             "    case \"$verb|$prev\" in"]
    for verb in verbs:
        for flag in verb.flags:
            if flag.choices:
                pattern = "|".join(f'"{verb.name}|{n}"' for n in flag.names)
                lines.append(f"        {pattern}) COMPREPLY=($(compgen -W "
                             f"\"{' '.join(flag.choices)}\" -- \"$cur\")); return ;;")
            elif flag.takes_value and _is_path(flag):
                pattern = "|".join(f'"{verb.name}|{n}"' for n in flag.names)
                lines.append(f"        {pattern}) COMPREPLY=($(compgen -f -- \"$cur\")); "
                             "return ;;")
    lines.append("    esac")
    lines.append("    case \"$verb\" in")
    lines.append(f"        \"\") COMPREPLY=($(compgen -W \"{' '.join(top)} "
                 f"{' '.join(n for f in top_flags(parser) for n in f.names)}\" -- \"$cur\")) ;;")
    for verb in verbs:
        depth = verb.name.count(" ") + 1
        subs = [v.name.split(" ")[-1] for v in verbs
                if v.name.startswith(verb.name + " ") and v.name.count(" ") == depth]
        words = subs + [n for f in verb.flags for n in f.names]
        lines.append(f"        \"{verb.name}\") COMPREPLY=($(compgen -W \"{' '.join(words)}\" "
                     f"-- \"$cur\")) ;;")
    lines += ["    esac", "}", "complete -o default -F _gpuadvisor gpuadvisor", ""]
    return "\n".join(lines)


def _is_path(flag: Flag) -> bool:
    words = " ".join(flag.names) + " " + flag.metavar + " " + flag.help.lower()
    return bool(re.search(r"file|folder|path|\.json|--out|--plan|--model", words))


# --------------------------------------------------------------------------- zsh
def _zsh_quote(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "'\\''").replace("[", "\\[").replace(
        "]", "\\]").replace(":", "\\:")


def zsh_script(parser: argparse.ArgumentParser) -> str:
    """A zsh completion function (``#compdef gpuadvisor``) built on ``_arguments``."""
    verbs = verbs_of(parser)
    top = [v for v in verbs if " " not in v.name]
    lines = ["#compdef gpuadvisor",
             "# zsh completion for gpuadvisor (generated: gpuadvisor completion zsh)",
             "_gpuadvisor() {",
             "    local -a verbs",
             "    verbs=("]
    for verb in top:
        lines.append(f"        '{verb.name}:{_zsh_quote(verb.help)}'")
    lines += ["    )",
              "    if (( CURRENT == 2 )); then",
              "        _describe 'verb' verbs",
              "        return",
              "    fi",
              "    case ${words[2]} in"]
    for verb in top:
        specs = []
        for flag in verb.flags:
            if flag.names == ("-h", "--help"):
                continue
            value = ""
            if flag.choices:
                value = f":{flag.metavar.lower()}:({' '.join(flag.choices)})"
            elif flag.takes_value:
                value = f":{flag.metavar.lower()}:" + ("_files" if _is_path(flag) else "")
            for name in flag.names:
                specs.append(f"'{name}[{_zsh_quote(flag.help[:80])}]{value}'")
        subs = [v.name.split(" ")[1] for v in verbs if v.name.startswith(verb.name + " ")]
        if subs:
            specs.append(f"'1:{verb.name} verb:({' '.join(subs)})'")
        body = " \\\n                ".join(specs) if specs else "'*: :'"
        lines.append(f"        {verb.name}) _arguments {body} ;;")
    lines += ["    esac", "}", "_gpuadvisor \"$@\"", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- fish
def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish_script(parser: argparse.ArgumentParser) -> str:
    """``complete -c gpuadvisor`` lines: verbs, then each verb's flags and their choices."""
    verbs = verbs_of(parser)
    top = [v for v in verbs if " " not in v.name]
    names = " ".join(v.name for v in top)
    lines = ["# fish completion for gpuadvisor (generated: gpuadvisor completion fish)",
             "complete -c gpuadvisor -f"]
    for verb in top:
        lines.append(f"complete -c gpuadvisor -n 'not __fish_seen_subcommand_from {names}' "
                     f"-a {verb.name} -d {_fish_quote(verb.help[:60])}")
    for verb in verbs:
        parts = verb.name.split(" ")
        cond = f"__fish_seen_subcommand_from {parts[0]}"
        if len(parts) > 1:
            cond += f"; and __fish_seen_subcommand_from {parts[-1]}"
        else:
            subs = [v.name.split(" ")[1] for v in verbs if v.name.startswith(verb.name + " ")]
            for sub in subs:
                lines.append(f"complete -c gpuadvisor -n '{cond}' -a {sub}")
        for flag in verb.flags:
            longs = [n[2:] for n in flag.names if n.startswith("--")]
            shorts = [n[1:] for n in flag.names if not n.startswith("--")]
            opt = " ".join([f"-l {n}" for n in longs] + [f"-s {n}" for n in shorts])
            extra = ""
            if flag.choices:
                extra = f" -x -a {_fish_quote(' '.join(flag.choices))}"
            elif flag.takes_value:
                extra = " -r" + (" -F" if _is_path(flag) else "")
            lines.append(f"complete -c gpuadvisor -n '{cond}' {opt}{extra} "
                         f"-d {_fish_quote(flag.help[:60])}")
    lines.append("")
    return "\n".join(lines)


# --------------------------------------------------------------------------- man page
def _roff(text: str) -> str:
    text = text.replace("\\", "\\e")
    return "\n".join(("\\&" + line) if line.startswith((".", "'")) else line
                     for line in text.split("\n"))


def man_page(parser: argparse.ArgumentParser, version: str,
             date: _dt.date | None = None) -> str:
    """gpuadvisor(1) in roff (``man -l``): synopsis, every verb with its flags (help text,
    choices), the exit status and the files."""
    date = date or _dt.date.today()
    out = [f'.TH GPUADVISOR 1 "{date.isoformat()}" "gpuadvisor {version}" "User Commands"',
           ".SH NAME", "gpuadvisor \\- will this training or inference plan fit my GPU, "
           "and how long will it take?",
           ".SH SYNOPSIS", ".B gpuadvisor", "[\\fIverb\\fR] [\\fIoptions\\fR]",
           ".SH DESCRIPTION", _roff(parser.description or ""),
           "With no verb the desktop app opens."]
    out.append(".SH OPTIONS")
    for flag in top_flags(parser):
        out += [".TP", "\\fB" + ", ".join(n.replace("-", "\\-") for n in flag.names) + "\\fR",
                _roff(flag.help)]
    for verb in verbs_of(parser):
        out += [f".SH {verb.name.upper()}", f".B gpuadvisor {verb.name}",
                _roff(verb.description or verb.help)]
        for flag in verb.flags:
            if flag.names == ("-h", "--help"):
                continue
            head = ", ".join(n.replace("-", "\\-") for n in flag.names)
            if flag.takes_value:
                head += " \\fI" + (("{" + ",".join(flag.choices) + "}") if flag.choices
                                   else flag.metavar) + "\\fR"
            out += [".TP", "\\fB" + head, _roff(flag.help or "(no description)")]
        if verb.epilog:
            out += [".PP", ".nf", _roff(verb.epilog), ".fi"]
    out += [".SH EXIT STATUS",
            ".TP", "0", "Success; for estimate: the plan fits.",
            ".TP", "2", "Bad input: a flag, an id or a file; one line on stderr names it.",
            ".TP", "3", "estimate: the plan does not fit the GPU's memory.",
            ".SH SEE ALSO", "The README (Help \\(-> Help in the app, or F1).", ""]
    return "\n".join(out)


def command(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``completion`` and ``man``: print the script or the page for ``parser`` on stdout."""
    import sys

    from gpuadvisor import __version__

    if args.verb == "man":
        sys.stdout.write(man_page(parser, __version__))
        return 0
    make = {"bash": bash_script, "zsh": zsh_script, "fish": fish_script}[args.shell]
    sys.stdout.write(make(parser))
    return 0
