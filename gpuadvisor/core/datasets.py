"""Training data sets as they are: how many samples, and how many tokens each sample has.

A fine-tuning run's time depends on the tokens it processes, and those are not ``samples x
--seq``: Hugging Face's collators pad each micro-batch to its longest sample (or pack samples
into full sequences), they do not pad every sample to the maximum length. This module holds
the data sets' measured length distributions and turns them into the job a plan runs:

- **padding per micro-batch** (the default of ``DataCollatorForSeq2Seq`` /
  ``DataCollatorWithPadding``, ``padding=True``: "pad to the longest sequence in the batch",
  transformers ``data/data_collator.py``): a micro-batch of ``b`` samples costs ``b`` times
  the expected longest of ``b`` lengths, each cut at ``--seq``. For ``b`` independent draws
  from a distribution with quantile function ``Q``, ``E[max] = integral_0^1 Q(u) b u^(b-1)
  du`` (the density of the largest of ``b`` uniform order statistics is ``b u^(b-1)``).
  ``Q`` is interpolated log-linearly between the measured quantiles (lengths are positive
  and right-skewed; the tail points are the counted shares above 512 and 1,024 tokens).
  Checked against the padded lengths counted on random batches of the real data
  (tests/test_datasets.py): within 5% at b = 1..16, the interpolation between the
  summary quantiles (p99 to the longest sample) running slightly long in the tail.
- **packing** (``--packing``: TRL's ``SFTConfig(packing=True)``, samples concatenated into
  sequences of ``--seq`` tokens): every token is a real one, so the job is the data set's
  tokens, each sample cut at ``--seq``; steps of full ``--seq`` sequences.

Memory is still sized at ``--seq``: the batch holding the longest samples sets the peak.

Each data set's figures name their source. Where a model's own tokenizer was not counted,
the closest counted family is used and the job says so.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class LengthStats:
    """Tokens per sample of one data set under one tokenizer.

    Attributes:
        mean: mean tokens per sample.
        quantiles: ``(share, tokens)`` points of the length distribution, from the shortest
            sample (share 0) to the longest (share 1), increasing.
        tokenizer: the tokenizer counted with (``Llama 2``).
    """

    mean: float
    quantiles: tuple[tuple[float, float], ...]
    tokenizer: str

    def __post_init__(self) -> None:
        shares = [u for u, _ in self.quantiles]
        if shares[0] != 0.0 or shares[-1] != 1.0 or shares != sorted(shares):
            raise ValueError("quantiles must run from share 0 to share 1, increasing")
        if any(t <= 0 for _, t in self.quantiles):
            raise ValueError("quantile lengths must be positive")

    def expected_longest(self, batch: int, cap: float | None = None) -> float:
        """Expected length of the longest of ``batch`` samples, each cut at ``cap`` tokens:
        ``integral_0^1 min(Q(u), cap) b u^(b-1) du`` (see the module docstring)."""
        return float(_expected_longest(self.quantiles, int(batch), cap))

    def mean_cut(self, cap: float | None = None) -> float:
        """Mean tokens per sample with every sample cut at ``cap`` (packing's tokens)."""
        if cap is None:
            return self.mean
        return min(self.mean, self.expected_longest(1, cap) * self.mean
                   / self.expected_longest(1))


_GRID = np.linspace(0.0, 1.0, 20_001)


@functools.lru_cache(maxsize=4096)
def _expected_longest(quantiles: tuple[tuple[float, float], ...], batch: int,
                      cap: float | None) -> float:
    # 0.5 ms of numpy per call, asked several times per estimate and per sweep point: kept.
    shares = np.array([u for u, _ in quantiles])
    lengths = np.log(np.array([t for _, t in quantiles], dtype=float))
    q = np.exp(np.interp(_GRID, shares, lengths))
    if cap is not None:
        q = np.minimum(q, cap)
    weight = batch * _GRID ** (batch - 1)
    return float(np.trapezoid(q * weight, _GRID))


@dataclass(frozen=True)
class DatasetSpec:
    """A training data set.

    Attributes:
        id: what ``--dataset`` takes.
        name: as people call it.
        kind: ``finetune`` (instruction samples, padded or packed) or ``pretrain`` (a token
            stream, packed into full sequences).
        samples: samples (rows) in one epoch.
        lengths: tokens per sample by tokenizer family (``llama``, ``mistral``, ``gpt2``).
        tokens: tokens in one epoch: a pre-training corpus measured in tokens, or a
            fine-tuning set whose mean length is published without its distribution
            (timed packed).
        source: where the figures come from.
        tokenizer: the tokenizer (and chat template) ``tokens`` was counted with, for a
            fine-tuning set without ``lengths``.
    """

    id: str
    name: str
    kind: str
    samples: int
    lengths: Mapping[str, LengthStats] = field(default_factory=dict)
    tokens: float | None = None
    source: str = ""
    tokenizer: str = ""


def _stats(mean, low, p10, p25, p50, p75, p90, p95, p99, over512, over1024, high,
           tokenizer) -> LengthStats:
    points = [(0.0, low), (0.10, p10), (0.25, p25), (0.50, p50), (0.75, p75), (0.90, p90),
              (0.95, p95), (0.99, p99), (1.0, high)]
    # the counted shares of samples longer than 512 and 1,024 tokens place the tail
    points += [(1.0 - over, length) for over, length in ((over512, 512.0), (over1024, 1024.0))
               if over > 0]
    return LengthStats(mean, tuple(sorted(points)), tokenizer)


#: Stanford Alpaca, our own count of every sample (benchmarks/calibration/alpaca_tokens:
#: METHOD.md and results.json): the text train.py trains on (the prompt template, the
#: output, EOS), 52,002 samples. Shares above 512/1,024 tokens are counted fractions.
ALPACA = DatasetSpec(
    id="alpaca", name="Alpaca", kind="finetune", samples=52_002,
    lengths={
        "llama": _stats(127.14, 42, 68, 82, 110.5, 155, 202, 241, 362, 0.0018653128725818237,
                        3.846005922849121e-05, 1304,
                        "Llama 2"),
        "mistral": _stats(121.14, 40, 64, 79, 105, 148, 192, 230, 344, 0.0013845621322256837,
                          3.846005922849121e-05, 1242,
                          "Mistral 7B v0.1"),
        "gpt2": _stats(111.14, 36, 58, 71, 96, 136, 178, 213, 323, 0.0013076420137687012,
                       3.846005922849121e-05, 1510, "GPT-2"),
    },
    source="our count of every sample of tatsu-lab/stanford_alpaca alpaca_data.json "
           "(benchmarks/calibration/alpaca_tokens)")

#: GSM8K's training split, our own count of every sample (benchmarks/calibration/
#: gsm8k_tokens: METHOD.md and results.json): question + newline + worked answer + EOS, as
#: the repository's own fine-tuning code builds it; 7,473 samples.
GSM8K = DatasetSpec(
    id="gsm8k", name="GSM8K", kind="finetune", samples=7_473,
    lengths={
        "llama": _stats(198.53, 69, 118, 144, 185, 239, 298.8, 338, 420, 0.001070520540612873,
                        0.0, 573, "Llama 2"),
        "mistral": _stats(194.07, 69, 115, 141, 181, 233, 291, 329, 409.28,
                          0.0008028904054596548, 0.0, 555, "Mistral 7B v0.1"),
        "gpt2": _stats(152.51, 50, 91, 110, 142, 185, 229, 259.4, 316.28, 0.0, 0.0, 435,
                       "GPT-2"),
    },
    source="our count of every sample of openai/grade-school-math train.jsonl "
           "(benchmarks/calibration/gsm8k_tokens)")

#: Code Alpaca's 2k set (sahil280114/codealpaca data/code_alpaca_2k.json, the repository's
#: "smaller 2k samples dataset", same pipeline as its 20k set), our own count of every sample
#: (benchmarks/calibration/code_alpaca_2k_tokens: METHOD.md and results.json): the Alpaca
#: template of the repo's train.py + output + EOS, 2,017 samples. Not the 20k file (absent
#: from the GitHub snapshots; not counted).
CODE_ALPACA_2K = DatasetSpec(
    id="code-alpaca-2k", name="Code Alpaca 2k", kind="finetune", samples=2_017,
    lengths={
        "llama": _stats(137.32, 47, 71, 91, 120, 166, 220, 259.2, 380.04,
                        0.002974714923153198, 0.0, 698, "Llama 2"),
        "mistral": _stats(135.40, 44, 70, 88, 118, 164, 218, 258.2, 387.72,
                          0.0034705007436787306, 0.0, 707, "Mistral 7B v0.1"),
        "gpt2": _stats(142.47, 40, 63.6, 83, 116, 175, 248, 305.2, 480.84,
                       0.0074367873078829945, 0.0004957858205255329, 1133, "GPT-2"),
    },
    source="our count of every sample of sahil280114/codealpaca data/code_alpaca_2k.json "
           "(benchmarks/calibration/code_alpaca_2k_tokens)")

#: LIMA, as LLaMA-Factory ships it (hiyouga/LLaMA-Factory data/lima.json, converted from
#: GAIR/lima: 1,000 single-turn + 29 multi-turn samples), our own count of every sample
#: (benchmarks/calibration/lima_tokens: METHOD.md and results.json): the Alpaca template
#: with earlier turns kept in the prompt, + last answer + EOS; 1,029 samples.
LIMA = DatasetSpec(
    id="lima", name="LIMA", kind="finetune", samples=1_029,
    lengths={
        "llama": _stats(747.26, 63, 187.8, 349, 524, 859, 1763.8, 2301, 3089.2,
                        0.511175898931001, 0.19825072886297376, 3954, "Llama 2"),
        "mistral": _stats(726.03, 60, 183.6, 339, 515, 845, 1696.8, 2228, 2975.32,
                          0.5053449951409135, 0.19533527696793002, 3824, "Mistral 7B v0.1"),
        "gpt2": _stats(689.56, 55, 169, 317, 486, 799, 1591.4, 2111, 2720.44,
                       0.4655004859086492, 0.18853255587949466, 3680, "GPT-2"),
    },
    source="our count of every sample of hiyouga/LLaMA-Factory data/lima.json "
           "(benchmarks/calibration/lima_tokens)")

#: FineWeb-Edu's 10B-token sample (HuggingFaceFW/fineweb-edu, config sample-10BT: "a
#: subset randomly sampled from the whole dataset of around 10B gpt2 tokens", data set
#: card, read 2026-12-06); rows: about 9.67M (copies of it: deatos/
#: tokenized_fineweb_edu_10b_combined, 9.49M train + 182K validation rows).
FINEWEB_EDU_10BT = DatasetSpec(
    id="fineweb-edu-10bt", name="FineWeb-Edu sample-10BT", kind="pretrain",
    samples=9_670_000, tokens=10e9,
    source="huggingface.co/datasets/HuggingFaceFW/fineweb-edu card: sample-10BT, about 10B "
           "GPT-2 tokens (read 2026-12-06)")

#: SlimOrca (Open-Orca/SlimOrca): 517,982 conversations (system, user, GPT-4 answer), a
#: mean of 408 tokens each with the Llama 3.1 tokenizer and the ChatML template, longest
#: 8,212 (sara-nl/LLM-finetune README.md @19e9e16, "Dataset" table; its finetune_unsloth.py
#: formats with ChatML). No length distribution is published: the job is its tokens,
#: packed.
SLIMORCA = DatasetSpec(
    id="slimorca", name="SlimOrca", kind="finetune", samples=517_982,
    tokens=517_982 * 408.0, tokenizer="Llama 3.1 + ChatML",
    source="517,982 conversations x 408 tokens (Llama 3.1 tokenizer, ChatML template; "
           "sara-nl/LLM-finetune README @19e9e16)")

#: UltraChat 200k (HuggingFaceH4/ultrachat_200k, split train_sft, 207,865 conversations,
#: data set card). Tokens from the run that made zephyr-7b-sft-full: one epoch of
#: train_sft (train_samples 207,865) packed into 2,048-token sequences (alignment-handbook
#: recipes/zephyr-7b-beta/sft/config_full.yaml: max_seq_length 2048; scripts/run_sft.py:
#: packing=True) took 1,090 steps of 128 sequences (the model card's training table):
#: 1,090 x 128 x 2,048 = 285.7M tokens with the Mistral tokenizer and Zephyr's chat
#: template, 1,374 per conversation (the last step may be partial: at most 0.1% fewer).
ULTRACHAT_200K = DatasetSpec(
    id="ultrachat-200k", name="UltraChat 200k", kind="finetune", samples=207_865,
    tokens=1_090 * 128 * 2_048.0, tokenizer="Mistral 7B v0.1 + Zephyr",
    source="207,865 conversations, 285.7M tokens (Mistral tokenizer, Zephyr template) as "
           "zephyr-7b-sft-full packed them: 1,090 steps x 128 x 2,048 tokens")

#: OpenHermes 2.5 (teknium/OpenHermes-2.5): 1,001,551 conversations, about 391.5M tokens
#: rendered with Gemma 4's tokenizer and chat template (schneiderkamplab/HRM-Text @f5b1cc8
#: wiki/pages/dfm8-plan/danish-education-data.md: "downloaded, converted, tokenized;
#: 1,001,551 rows; about 391.5M rendered tokens", counted with scripts/
#: tokenize_chat_template.py over every row), 391 per conversation. Gemma's 262k-entry
#: vocabulary takes fewer tokens for the same text than Llama 2's 32k; no distribution is
#: published: the job is its tokens, packed.
OPENHERMES_25 = DatasetSpec(
    id="openhermes-2.5", name="OpenHermes 2.5", kind="finetune", samples=1_001_551,
    tokens=391.5e6, tokenizer="Gemma 4 + its chat template",
    source="1,001,551 conversations, 391.5M tokens (Gemma 4 tokenizer and chat template, "
           "every row counted; schneiderkamplab/HRM-Text wiki @f5b1cc8)")

#: The data sets ``--dataset`` knows, by id.
DATASETS: dict[str, DatasetSpec] = {d.id: d for d in (ALPACA, GSM8K, CODE_ALPACA_2K, LIMA,
                                                     SLIMORCA, ULTRACHAT_200K, OPENHERMES_25,
                                                     FINEWEB_EDU_10BT)}
#: The job of a fine-tune that names no data set.
DEFAULT_FINETUNE_DATASET = "alpaca"


def tokenizer_family(vocab_size: int, family: str = "") -> str:
    """The counted tokenizer family closest to a model's: GPT-2's BPE (vocab 50,257),
    Mistral's SentencePiece (Mistral/Mixtral with a 32,000 vocab), Llama 2's SentencePiece
    for the rest (the count most models' English token rates lie nearest to; the job says
    which tokenizer was counted)."""
    if vocab_size in (50_257, 50_304):
        return "gpt2"
    if vocab_size == 32_000 and any(w in family.lower() for w in ("mistral", "mixtral")):
        return "mistral"
    return "llama"


@dataclass(frozen=True)
class Job:
    """The tokens a training plan processes.

    Attributes:
        tokens: tokens processed in the whole job (padding included), every epoch.
        seq: tokens per sample as the step sees them (the padded length of a micro-batch,
            or ``--seq`` for packed or full-length sequences); the step is timed at it.
        origin: ``plan`` (given), ``dataset`` (a named data set) or ``assumed``.
        text: the job in words (which data set, how many samples and tokens, how counted).
        dataset: the data set's name ("" when the plan gives only a count).
        samples: samples per epoch (0 when the job is given in tokens).
        per_sample: tokens per sample as processed (padded, or packed).
        packed: samples packed into full sequences.
        tokenizer: the tokenizer the lengths were counted with ("" when not counted).
    """

    tokens: float
    seq: float
    origin: str
    text: str
    dataset: str = ""
    samples: float = 0.0
    per_sample: float = 0.0
    packed: bool = False
    tokenizer: str = ""


def job_of(dataset: DatasetSpec, *, vocab_size: int, family: str, seq_len: int,
           micro_batch: int, epochs: float, packing: bool, samples: float | None = None,
           origin: str = "plan") -> Job:
    """The job of ``dataset`` trained as the plan says (see :class:`Job`)."""
    n = float(samples if samples is not None else dataset.samples)
    if dataset.kind == "pretrain" or not dataset.lengths:
        total = (dataset.tokens or 0.0) * (n / dataset.samples) * epochs
        text = f"{dataset.name}: {_count(total)} tokens ({dataset.source})"
        if dataset.kind == "finetune":
            text += (f", packed into {seq_len:,}-token sequences x {epochs:g} epoch(s)"
                     + ("" if packing else "; without a published length distribution "
                        "padding per micro-batch cannot be counted, so the job is timed "
                        "packed (--packing)"))
        return Job(total, float(seq_len), origin, text, dataset=dataset.name,
                   samples=n if dataset.kind == "finetune" else 0.0,
                   per_sample=(dataset.tokens or 0.0) / dataset.samples
                   if dataset.kind == "finetune" else 0.0, packed=True,
                   tokenizer=dataset.tokenizer)
    fam = tokenizer_family(vocab_size, family)
    stats = dataset.lengths.get(fam) or next(iter(dataset.lengths.values()))
    if packing:
        per = stats.mean_cut(seq_len)
        how = f"packed into {seq_len:,}-token sequences"
        seq = float(seq_len)
    else:
        per = stats.expected_longest(micro_batch, seq_len)
        how = f"each micro-batch of {micro_batch} padded to its longest sample"
        seq = per
    total = n * epochs * per
    text = (f"{dataset.name}, {_count(n)} samples x {per:.0f} tokens ({how}; counted with "
            f"the {stats.tokenizer} tokenizer) x {epochs:g} epoch(s)")
    return Job(total, seq, origin, text, dataset=dataset.name, samples=n, per_sample=per,
               packed=packing, tokenizer=stats.tokenizer)


def _count(value: float) -> str:
    if value >= 1e9:
        return f"{value / 1e9:.3g}B"
    if value >= 1e6:
        return f"{value / 1e6:.3g}M"
    return f"{value:,.0f}" if value == math.floor(value) else f"{value:,.1f}"


__all__ = ["ALPACA", "CODE_ALPACA_2K", "DATASETS", "DEFAULT_FINETUNE_DATASET", "FINEWEB_EDU_10BT",
           "GSM8K", "LIMA", "OPENHERMES_25", "SLIMORCA", "ULTRACHAT_200K", "DatasetSpec", "Job",
           "LengthStats", "job_of", "tokenizer_family"]
