"""``gpuadvisor catalog list|show|validate|update``: the catalog's GPUs, models, offers and
hosted APIs."""

from __future__ import annotations

import argparse
import sys

from .args import (
    EXIT_BAD_INPUT,
    InputError,
    Parser,
    did_you_mean,
    json_text,
    path_text,
    tell_catalog_warnings,
)

KINDS = ("gpus", "models", "offers", "apis")


def add_parser(verbs) -> None:
    """Add the ``catalog`` verb and its own verbs to ``verbs``."""
    cat = verbs.add_parser("catalog", help="list, show and validate catalog data")
    cat_verbs = cat.add_subparsers(dest="catalog_verb", parser_class=Parser)
    lst = cat_verbs.add_parser("list", help="list GPUs, models or offers")
    lst.add_argument("--kind", choices=KINDS, default="gpus", help="what to list")
    lst.add_argument("--json", action="store_true", help="print one JSON object")
    show = cat_verbs.add_parser("show", help="show one GPU, model or offer")
    show.add_argument("id")
    show.add_argument("--json", action="store_true", help="print one JSON object")
    val = cat_verbs.add_parser("validate", help="check a catalog file; exit 2 if it has problems")
    val.add_argument("path")
    upd = cat_verbs.add_parser(
        "update", help="install a newer catalog file from a path or an https:// URL",
        description="Read a catalog file (local path, or https:// URL: at most 5 MB, 20 s), "
                    "validate all of it, and swap it in for the shipped one in the user data "
                    "folder (catalog/updates/KIND.toml; the one it replaces is kept as "
                    "KIND.toml.previous). A bad file changes nothing. Nothing is downloaded "
                    "unless you run this.")
    upd.add_argument("--from", dest="source", required=True, metavar="PATH|URL",
                     type=path_text("--from"),
                     help="the new catalog file: a local path or an https:// URL")
    upd.add_argument("--kind", choices=("offers", "gpus", "models", "apis"), default=None,
                     help="the catalog kind (default: told from the file name)")
    upd.add_argument("--json", action="store_true", help="print one JSON object")


def command(args: argparse.Namespace) -> int:
    """``catalog VERB``: dispatch to list, show, validate or update."""
    from gpuadvisor import catalog

    if args.catalog_verb == "validate":
        problems = _validate(args.path)
        if problems:
            for line in problems:
                print(line, file=sys.stderr)
            return EXIT_BAD_INPUT
        print(f"{args.path}: OK")
        for line in _stale_prices(args.path):
            print(line)
        return 0
    if args.catalog_verb == "list":
        items = _catalog_items(args.kind)
        if args.json:
            print(json_text({"items": items}))
        elif args.kind == "offers":
            print(_offers_table(items))
        elif args.kind == "apis":
            print(_apis_table(items))
        else:
            from gpuadvisor.report import catalog_table

            print(catalog_table(args.kind, items))
        tell_catalog_warnings(catalog.catalog_warnings())
        return 0
    if args.catalog_verb == "show":
        return _show(args)
    if args.catalog_verb == "update":
        return _update(args)
    raise InputError("catalog: say list, show, validate or update")


def _validate(path: str) -> list[str]:
    """``catalog validate PATH``: the checks loading and ``catalog update`` make (schema,
    every entry usable, offers against the GPUs in effect), and, like ``update``, a file
    with no entries is refused. One line per problem."""
    from gpuadvisor import catalog
    from gpuadvisor.catalog.files import display_name, kind_of, load_checked
    from gpuadvisor.catalog.overrides import in_effect_gpu_ids, in_effect_model_ids

    if not path.strip():
        raise InputError(f"catalog validate: the path is empty ({path!r}); name a "
                         "gpus.toml, models.toml, offers.toml or apis.toml file")
    problems = catalog.validate_file(path)
    if problems:
        return problems
    records, problems = load_checked(path, kind_of(path), in_effect_gpu_ids,
                                     in_effect_model_ids)
    if not problems and not records:
        problems = [f"{display_name(path)}: has no entries; a catalog file needs at least "
                    "one (catalog update refuses such a file too)"]
    return problems


def _stale_prices(path: str) -> list[str]:
    """Warnings for an offers file's prices older than
    :data:`~gpuadvisor.core.offers.STALE_AFTER_DAYS` (they still load: a price's age is
    shown, not refused), oldest first."""
    from datetime import date

    from gpuadvisor import catalog
    from gpuadvisor.catalog.files import kind_of
    from gpuadvisor.core.offers import STALE_AFTER_DAYS, age_days, is_stale

    if kind_of(path) != "offers":
        return []
    today = date.today()
    offers = [o for o in catalog.load_offers(path).values() if is_stale(o, today)]
    if not offers:
        return []
    offers.sort(key=lambda o: -age_days(o, today))
    lines = [f"warning: {len(offers)} price(s) older than {STALE_AFTER_DAYS} days; refresh "
             "them from their source:"]
    lines += [f"  {o.id}: as of {o.as_of} ({age_days(o, today)} days), {o.source}"
              for o in offers]
    return lines


def _show(args: argparse.Namespace) -> int:
    """``catalog show ID``: the first GPU, model or offer with that id."""
    for kind in KINDS:
        for item in _catalog_items(kind):
            if item["id"] == args.id:
                if args.json:
                    print(json_text(item))
                else:
                    width = max(len(k) for k in item)
                    print("\n".join(f"{k:<{width}}  {v}" for k, v in item.items()))
                return 0
    known = [i["id"] for k in KINDS for i in _catalog_items(k)]
    raise InputError(f"catalog show: unknown id {args.id!r}{did_you_mean(args.id, known)}")


def _update(args: argparse.Namespace) -> int:
    """``catalog update --from PATH|URL [--kind K]``: install, then say what changed."""
    from gpuadvisor import catalog

    try:
        result = catalog.update_catalog(args.source, args.kind)
    except catalog.UpdateError as exc:
        raise InputError(f"catalog update: {exc}") from None
    changes = result.changes
    if args.json:
        print(json_text({
            "kind": result.kind, "source": result.source, "path": str(result.path),
            "backup": str(result.backup) if result.backup else None,
            "size_bytes": result.size_bytes,
            "added": list(changes.added), "removed": list(changes.removed),
            "changed": {k: [list(d) for d in v] for k, v in changes.changed.items()},
        }))
        return 0
    print(f"{result.kind}: installed {result.path} ({result.size_bytes} bytes) from "
          f"{result.source}")
    if result.backup:
        print(f"previous file kept as {result.backup}")
    print(f"{result.kind}: {changes.summary()}" if not changes.unchanged
          else f"{result.kind}: no entries changed")
    for line in changes.lines():
        print(f"  {line}")
    return 0


def _offers_table(items: list[dict]) -> str:
    """A compact table of offers: price per card (buy) or per GPU-hour (rent, cloud)."""
    header = (f"{'id':<34}{'kind':<9}{'gpu':<24}{'provider':<20}{'price':>11}  "
              f"{'as of':<11}")
    rows = []
    for i in items:
        unit = "" if i["kind"].startswith("buy") else "/h"
        flags = ("*" if i["estimate"] else "") + (" spot" if i["spot"] else "") + (
            " (yours)" if i["user"] else "")
        price = f"${i['price_usd']:,.2f}{unit}"
        rows.append(f"{i['id'][:33]:<34}{i['kind']:<9}{i['gpu_id'][:23]:<24}"
                    f"{i['provider'][:19]:<20}{price:>11}  {i['as_of']:<11}{flags}")
    return "\n".join([header, *rows, f"({len(items)} offers; * estimate; rent and cloud "
                                      "prices are per GPU-hour)"])


def _catalog_items(kind: str) -> list[dict]:
    """Every entry of one catalog kind as a flat dict (models add their parameter counts,
    offers a display name)."""
    from dataclasses import asdict

    from gpuadvisor import catalog

    if kind == "gpus":
        return [asdict(g) for g in catalog.load_gpus().values()]
    if kind == "models":
        items = []
        for spec in catalog.load_models().values():
            item = asdict(spec)
            item.pop("extra", None)
            counts = spec.params()
            item["params_total"] = counts.total
            item["params_active"] = counts.active
            items.append(item)
        return items
    if kind == "offers":
        items = []
        gpus = catalog.load_gpus()
        for offer in catalog.load_offers().values():
            item = asdict(offer)
            gpu = gpus.get(offer.gpu_id)
            what = offer.instance or (gpu.name if gpu else offer.gpu_id)
            item["name"] = f"{offer.provider}: {what}"
            items.append(item)
        return items
    if kind == "apis":
        items = []
        for api in catalog.load_apis().values():
            item = asdict(api)
            item["kind"] = api.kind
            item["name"] = f"{api.provider}: {api.model_name}"
            items.append(item)
        return items
    raise InputError(f"catalog list: unknown kind {kind!r}")


def _apis_table(items: list[dict]) -> str:
    """Hosted APIs as a text table: US dollars per million input and output tokens."""
    header = (f"{'id':<38}{'model':<18}{'provider':<24}{'in $/Mtok':>10}{'out $/Mtok':>11}"
              f"  as of")
    rows = [header, "-" * len(header)]
    for i in items:
        rows.append(f"{i['id'][:37]:<38}{i['model'][:17]:<18}{i['provider'][:23]:<24}"
                    f"{i['input_usd_per_mtok']:>10.3f}{i['output_usd_per_mtok']:>11.3f}"
                    f"  {i['as_of']}")
    return "\n".join(rows)
