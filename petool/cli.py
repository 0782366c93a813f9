"""The ``petool`` command: a thin shell over the library, subcommands in pipeline order."""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sqlite3
import sys
from pathlib import Path

from petool import formats, stats
from petool.baselines import BASELINES
from petool.bench import BuildConfig, build
from petool.evaluate import compute_metrics, evaluate, score_responses
from petool.formats import load_entries, read_json
from petool.models import ModelNotFound
from petool.predictors import ModelSpec, build_predictor
from petool.schema import ALL_SETTINGS, SETTINGS, setting_list
from petool.scoring import format_table
from petool.store import Store
from petool.train import add_train_arguments, run_train_command

CONVERT_TARGETS = {
    "release": "entries -> a folder of user_entries_test_{p,r,c,none}.json (the authors' release format)",
    "combined": "entries -> one file in the early combined format (.json or .json.gz)",
    "lf-sft": "entries -> a folder of LLaMA-Factory SFT files user_entries_sft_{p,r,c}.json + dataset_info.json",
    "trl-sft": "entries or a LLaMA-Factory SFT file -> TRL prompt/completion JSONL",
    "lf-dpo": "a TRL preference JSONL -> LLaMA-Factory DPO JSON + dataset_info.json",
    "trl-dpo": "a LLaMA-Factory DPO file -> TRL conversational preference JSONL",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="petool", description="Personalized tool learning: PEToolBench data, models, scoring, training.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("build", help="build a PEToolBench-style benchmark offline from a tool catalog")
    p.add_argument("--out", required=True, help="output folder: test/ (release files), train/ (SFT, DPO), summary.json")
    p.add_argument(
        "--catalog",
        action="append",
        default=None,
        help="a petool catalog JSON (.json or .json.gz) or a ToolBench tools folder (default: the shipped one); "
        "repeat to merge several into one pool (names must not clash)",
    )
    p.add_argument("--seed", type=int, default=0, help="the same seed gives byte-identical files")
    p.add_argument("--n-train", type=int, default=2000, help="training entries")
    p.add_argument("--n-test", type=int, default=1000, help="test entries")
    p.add_argument("--settings", default="p,r,c", help="history settings to write")
    p.add_argument(
        "--split-by",
        default="cluster",
        choices=["cluster", "entry", "category"],
        help="cluster: train and test use disjoint functional clusters; category: train, validation and test use disjoint categories",
    )
    p.add_argument("--n-validation", type=int, default=0, help="validation entries (--split-by category only)")
    p.add_argument("--n-candidates", type=int, default=10, help="candidates per entry")
    p.add_argument("--window", type=int, default=20, help="history turns embedded in the prompt")
    p.add_argument("--style", default="paper", help="prompt style of the training files: paper, compact or shortlist")
    p.add_argument(
        "--copied-clusters",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of functional clusters built as one API copied under several tools, as PEToolBench's are (0-1)",
    )
    p.add_argument(
        "--narrowed-clusters",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of functional clusters given a twin narrowed by one parameter, GetNews / GetNewsByTopic (0-1)",
    )
    p.add_argument(
        "--indirect",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of queries worded away from the gold API's name and description, as a user who never read its docs asks (0-1)",
    )
    p.add_argument("--no-trl-sft", action="store_true", help="skip the TRL SFT JSONL files (the largest output)")
    p.add_argument("--paraphrase-url", default=None, help="OpenAI-compatible base URL for the optional paraphrase step")
    p.add_argument("--paraphrase-key", default=None, help="its API key (or env PETOOL_PARAPHRASE_KEY)")
    p.add_argument("--paraphrase-model", default="gpt-4o-mini", help="its model name")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    p = sub.add_parser("stats", help="distributions of entries next to the real dev entries")
    p.add_argument("paths", nargs="+", help="entries to describe (files or folders)")
    p.add_argument(
        "--real", default=None, help="real entries to compare with (default: ../shared/petoolbench/early_test_dev.json.gz when present)"
    )
    p.add_argument("--no-real", action="store_true", help="do not compare with the real entries")
    p.add_argument(
        "--tokens",
        default="estimate",
        choices=["auto", "model", "estimate"],
        help="count prompt tokens with the default model's tokenizer or estimate them",
    )
    p.add_argument("--figures", default=None, help="also save plotly HTML figures to this folder")

    p = sub.add_parser("eval", help="run a model or baseline over entries and score it")
    p.add_argument("--data", required=True, help="entries: early combined file, release file or folder")
    p.add_argument("--settings", default="p,r,c", help="comma list of p, r, c, none (default p,r,c)")
    p.add_argument("--model", required=True, help="baseline:<rule>, openai:<name>, a path, a Hub id, or 'default'")
    p.add_argument(
        "--adapter",
        default=None,
        help="LoRA adapter folder, 'default' for the shipped PEToolLLaMA, or 'none' for the base alone (as when left out)",
    )
    p.add_argument("--mode", default="petool", choices=["petool", "paper"], help="generation mode (language models)")
    p.add_argument(
        "--style", default=None, help="prompt style: paper, compact or shortlist (default: paper in paper mode, shortlist in petool mode)"
    )
    p.add_argument("--parse", default="robust", choices=["paper", "robust"], help="how outputs are parsed")
    p.add_argument("--load-in-4bit", action="store_true", help="load a local model in 4-bit (bitsandbytes)")
    p.add_argument(
        "--rank-prior",
        type=float,
        default=None,
        help="shortlist style: weight of the ranking's prior in the tool choice (default 2.5; 0: the model alone)",
    )
    p.add_argument(
        "--close-penalty",
        type=float,
        default=None,
        help="petool mode: holds the parameters to what the instruction states: values it names go in, a close is held back while a stated value is missing, and the call closes once all are written (default 1000; 0: off)",
    )
    p.add_argument("--base-url", default=None, help="openai: models: the endpoint (default $OPENAI_BASE_URL)")
    p.add_argument("--api-key", default=None, help="openai: models: the key (default $OPENAI_API_KEY)")
    p.add_argument("--limit", type=int, default=None, help="use only the first N entries")
    p.add_argument("--seed", type=int, default=0, help="seed for baselines that draw at random")
    p.add_argument("--out", required=True, help="run folder: config.json, predictions.jsonl, metrics.json")
    p.add_argument("--db", default=None, help="also import the run into this SQLite store")
    p.add_argument(
        "--replace",
        action="store_true",
        help="with --db: replace a stored run with the same id (the --out folder's name); without it that import is refused",
    )
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    p = sub.add_parser("score", help="score a JSON list of responses against entries")
    p.add_argument("--data", required=True, help="entries: early combined file, release file or folder")
    p.add_argument("--responses", required=True, help='JSON list of {"entry_id", "setting", "response"}')
    p.add_argument("--parse", default="robust", choices=["paper", "robust"], help="how responses are parsed")
    p.add_argument("--settings", default=None, help="settings to score (default: those in the responses)")
    p.add_argument("--json", action="store_true", help="print the metrics as JSON")

    p = sub.add_parser("convert", help="convert between PEToolBench, LLaMA-Factory and TRL files")
    p.add_argument("input", help="entries (file or folder) or a training file")
    p.add_argument("--to", required=True, choices=sorted(CONVERT_TARGETS), help="; ".join(f"{k}: {v}" for k, v in CONVERT_TARGETS.items()))
    p.add_argument("--out", required=True, help="output file or folder")
    p.add_argument("--settings", default="p,r,c", help="settings to write (entries only)")
    p.add_argument("--style", default="paper", help="prompt style for training files made from entries")

    p = sub.add_parser("train", help="train PEToolLLaMA: LoRA SFT, then DPO from the SFT adapter (TRL)")
    add_train_arguments(p)

    p = sub.add_parser("baselines", help="list the rule baselines usable as --model baseline:<rule>")
    return parser


EXIT_BROKEN_PIPE = 141
"""What a shell shows for a command ended by SIGPIPE (128 + 13): the reader of its output left."""


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand. Bad input, a missing model and a damaged database end in one line on
    stderr (naming the file or field) and exit code 2; anything else is a bug and keeps its traceback."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 0
    try:
        code = COMMANDS[args.command](args)
        sys.stdout.flush()  # a reader that left (`| head -1`) shows here, not at interpreter exit
        return code
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_BROKEN_PIPE
    except (ValueError, ModelNotFound, sqlite3.Error, OSError) as exc:
        print(f"petool {args.command}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: rerun the same command to resume", file=sys.stderr)
        return 130


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return " ".join(str(exc).split()) or type(exc).__name__


def _discard_stdout() -> None:
    """Point stdout at devnull so the interpreter's last flush does not fail again (Python's
    documented way to handle SIGPIPE); a stdout without a file descriptor (tests) is left alone."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _load(path: str):
    result = load_entries(path)
    for problem in result.problems:
        print(f"warning: skipped {problem}", file=sys.stderr)
    if not result.entries:
        raise ValueError(f"{path}: no usable entries")
    return result.entries


def cmd_build(args) -> int:
    config = BuildConfig(
        seed=args.seed,
        n_train=args.n_train,
        n_test=args.n_test,
        settings=tuple(setting_list(args.settings, SETTINGS)),
        split_by=args.split_by,
        n_validation=args.n_validation,
        n_candidates=args.n_candidates,
        window=args.window,
        style=args.style,
        p_copied_cluster=args.copied_clusters,
        p_narrowed_cluster=args.narrowed_clusters,
        p_indirect=args.indirect,
        write_trl_sft=not args.no_trl_sft,
        paraphrase_url=args.paraphrase_url,
        paraphrase_key=args.paraphrase_key or os.environ.get("PETOOL_PARAPHRASE_KEY", ""),
        paraphrase_model=args.paraphrase_model,
    )
    summary = build(config, args.out, args.catalog, progress=not args.no_progress)
    shown = {k: v for k, v in summary.items() if k != "files"}
    print(json.dumps(shown, indent=2, ensure_ascii=False))
    print(f"wrote {len(summary['files'])} files under {args.out}")
    return 0


def cmd_stats(args) -> int:
    sources = {Path(p).name: _load(p) for p in args.paths}
    real = args.real or str(Path(__file__).resolve().parents[2] / "shared" / "petoolbench" / "early_test_dev.json.gz")
    if not args.no_real and Path(real).exists():
        sources["real dev"] = _load(real)
    count, label = stats.token_counter(args.tokens)
    print(stats.format_table(stats.stats_table(sources, count)))
    print(f"prompt tokens: {label}")
    if args.figures:
        paths = stats.write_figures(sources, args.figures, count)
        print(f"wrote {len(paths)} figures to {args.figures}")
    return 0


def cmd_eval(args) -> int:
    entries = _load(args.data)
    settings = setting_list(args.settings)
    spec = ModelSpec.parse(args.model)
    extra = {"base_url": args.base_url, "api_key": args.api_key} if spec.kind == "openai" else {}
    if args.load_in_4bit:
        extra["load_in_4bit"] = True
    local = spec.is_local
    for flag, value, key in (
        ("--rank-prior", args.rank_prior, "rank_prior_weight"),
        ("--close-penalty", args.close_penalty, "close_penalty"),
    ):
        if value is not None and not local:
            raise SystemExit(f"{flag} applies to local language models")
        if value is not None:
            extra[key] = value
    adapter = None if args.adapter in (None, "", "none") else args.adapter  # as PETOOL_ADAPTER=none in the app
    predictor = build_predictor(spec, adapter=adapter, mode=args.mode, style=args.style, seed=args.seed, **extra)
    config = {"data": str(Path(args.data).resolve()), "mode": args.mode, "style": args.style, "adapter": adapter, "seed": args.seed}
    metrics = evaluate(entries, settings, predictor, args.out, args.limit, args.parse, not args.no_progress, config)
    print(format_table(metrics["by_setting"], ["setting", "n", "tool_acc", "param_acc"]))
    if args.db:
        run_id = Store(args.db).import_run(args.out, replace=args.replace)
        print(f"imported as run {run_id} into {args.db}")
    print(f"wrote {Path(args.out) / 'predictions.jsonl'} and metrics.json")
    return 0


def cmd_score(args) -> int:
    entries = _load(args.data)
    responses = read_json(args.responses)
    if not isinstance(responses, list):
        raise ValueError(f"{args.responses}: expected a JSON list of responses")
    settings = setting_list(args.settings) if args.settings else None
    try:
        records = score_responses(entries, responses, args.parse, settings)
    except ValueError as exc:
        raise ValueError(f"{args.responses}: {exc}") from None
    metrics = compute_metrics(records)
    if args.json:
        print(json.dumps(metrics, indent=2))
    else:
        print(format_table(metrics["by_setting"], ["setting", "n", "tool_acc", "param_acc"]))
    return 0


def cmd_convert(args) -> int:
    src, out = Path(args.input), Path(args.out)
    if args.to in ("lf-dpo", "trl-dpo"):
        reader = formats.read_trl_preferences if args.to == "lf-dpo" else formats.read_lf_dpo
        pairs, problems = reader(src)
        _refuse_if_empty(src, pairs, problems)
        if args.to == "lf-dpo":
            formats.write_lf_dpo(pairs, out / "user_entries_dpo.json")
            formats.write_dataset_info(out, {"user_entries_dpo": ("user_entries_dpo.json", True)})
        else:
            formats.write_trl_preferences(pairs, out)
        print(f"wrote {len(pairs)} pairs to {out}")
        return 0
    if args.to == "trl-sft" and src.is_file() and _looks_like_lf_sft(src):
        examples, problems = formats.read_lf_sft(src)
        _refuse_if_empty(src, examples, problems)
        formats.write_trl_sft(examples, out)
        print(f"wrote {len(examples)} examples to {out}")
        return 0
    entries = _load(args.input)
    settings = setting_list(args.settings, ALL_SETTINGS)
    if args.to in ("lf-sft", "trl-sft", "release") and not any(s in e.settings for e in entries for s in settings):
        raise ValueError(f"{src}: no entry has the settings {', '.join(settings)}; nothing written")
    if args.to == "release":
        paths = formats.write_release_files(entries, out, settings)
    elif args.to == "combined":
        paths = [formats.write_combined(entries, out)]
    elif args.to == "lf-sft":
        names = {}
        paths = []
        for s in settings:
            rows = [formats.entry_to_sft(e, s, args.style) for e in entries if s in e.settings]
            name = formats.SFT_FILE.format(setting=s)
            paths.append(formats.write_lf_sft(rows, out / name))
            names[name.removesuffix(".json")] = (name, False)
        paths.append(formats.write_dataset_info(out, names))
    else:
        rows = [formats.entry_to_sft(e, s, args.style) for e in entries for s in settings if s in e.settings]
        paths = [formats.write_trl_sft(rows, out)]
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def _refuse_if_empty(src: Path, rows: list, problems: list[str]) -> None:
    """Say what was skipped; with no usable row, fail before writing anything (an empty training
    file is not a success)."""
    _warn(problems)
    if not rows:
        skipped = f" ({len(problems)} skipped, see the warnings above)" if problems else ""
        raise ValueError(f"{src}: no usable rows{skipped}; nothing written")


def _looks_like_lf_sft(path: Path) -> bool:
    with open(path, "rb") as f:
        head = f.read(4096)
    if head[:2] == b"\x1f\x8b":
        with gzip.open(path) as f:
            head = f.read(4096)
    head = head.decode("utf-8", "ignore")
    return '"output"' in head and '"api_call_ground_truth"' not in head


def _warn(problems: list[str]) -> None:
    for problem in problems:
        print(f"warning: skipped {problem}", file=sys.stderr)


def cmd_train(args) -> int:
    return run_train_command(args)


def cmd_baselines(args) -> int:
    for name, meaning in BASELINES.items():
        print(f"baseline:{name:<10} {meaning}")
    return 0


COMMANDS = {
    "build": cmd_build,
    "stats": cmd_stats,
    "eval": cmd_eval,
    "score": cmd_score,
    "convert": cmd_convert,
    "train": cmd_train,
    "baselines": cmd_baselines,
}
