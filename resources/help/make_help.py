"""Write the app's English help page (``help_en.md``) from the README's user sections.

    python resources/help/make_help.py

The help (F1 in the app) is the README from its introduction to "Your files and safety":
everything a user reads, without the development notes. Pictures are left out (the help is
offline and ships without them) and links to files of the repository become plain text;
links to other sections and to web pages stay. ``extra_en.md`` (the keyboard, files and
colours of the desktop app) is added after "The desktop app" unless the README already has
a section of the same title. The Chinese help, ``help_zh_CN.md``, is written by hand: update
it when the English changes (a test checks that both have the same sections).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
#: The first section of the README that is not for users.
FIRST_DEVELOPER_SECTION = "## Development"

_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)]+)\)")


def _link(match: re.Match) -> str:
    text, target = match.group(1), match.group(2)
    if target.startswith(("#", "http://", "https://")):
        return match.group(0)
    return text  # a file of the repository: not in the installed app


def user_sections(readme: str) -> str:
    """The README's text for users: from after the setup commands to the development notes."""
    start = readme.index("**Can my GPU train this")
    end = readme.index(FIRST_DEVELOPER_SECTION)
    return readme[start:end]


def _drop_dangling_colon(lines: list[str]) -> None:
    """A picture table removed: the sentence that announced it ("At 1366x768:") goes too."""
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and lines[-1].rstrip().endswith(":"):
        line = lines[-1].rstrip()
        cut = line.rfind(". ")
        lines[-1] = line[:cut + 1] if cut >= 0 else ""
    lines.append("")


def help_markdown(readme: str, extra: str = "") -> str:
    """The help page's Markdown for ``readme`` (and the ``extra`` section, see the module)."""
    body = user_sections(readme)
    lines: list[str] = []
    in_pictures = False
    for raw in body.splitlines():
        pictures = raw.strip().startswith("|") and _IMAGE.search(raw)
        if raw.strip().startswith("|") and (in_pictures or pictures):
            while not in_pictures and lines and lines[-1].strip().startswith("|"):
                lines.pop()  # the gallery's header rows
            if not in_pictures:
                _drop_dangling_colon(lines)
            in_pictures = True
            continue
        if in_pictures and raw.strip().startswith("|"):
            continue
        in_pictures = False
        if raw.strip() and not _IMAGE.sub("", raw).strip():
            # A picture alone on its line: a sentence announcing it ends with a full stop.
            last = next((i for i in range(len(lines) - 1, -1, -1) if lines[i].strip()), None)
            if last is not None and lines[last].rstrip().endswith(":"):
                lines[last] = lines[last].rstrip()[:-1] + "."
            continue
        line = _LINK.sub(_link, _IMAGE.sub("", raw))
        if not line.strip() and lines and not lines[-1].strip():
            continue
        lines.append(line)
    text = "\n".join(lines)
    title = extra.splitlines()[0] if extra.strip() else ""
    if title and title not in readme:
        marker = "\n## Estimate a plan"
        text = text.replace(marker, "\n" + extra.strip() + "\n" + marker, 1)
    return "# gpuadvisor help\n\n" + text.strip() + "\n"


def main() -> int:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    extra_path = HERE / "extra_en.md"
    extra = extra_path.read_text(encoding="utf-8") if extra_path.exists() else ""
    out = HERE / "help_en.md"
    out.write_text(help_markdown(readme, extra), encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
