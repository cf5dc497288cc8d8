"""Serving many users at once: the steady-state split of the GPU's time, the KV pool as the
limit, and the capacity sentence every door prints."""

from __future__ import annotations

import json
import math

import pytest

from gpuadvisor import catalog
from gpuadvisor.core import compute as C
from gpuadvisor.core import serving_load as S
from gpuadvisor.core.plan import Plan
from gpuadvisor.core.resolve import resolve
from tests.cli_run import run_cli

MODELS, GPUS = catalog.load_models(), catalog.load_gpus()


def base(gpu="h100-sxm", framework="vllm", seq=8192, new=512, **fields):
    plan = Plan(task="infer", framework=framework, seq_len=seq, new_tokens=new, **fields)
    return resolve(MODELS["llama-3.1-8b"], plan, GPUS[gpu])


def test_a_memory_bound_step_takes_prompt_tokens_for_their_matmuls_beyond_its_reads():
    """A step of 10 ms of reads (8 of them weights), 2 ms of matmuls and 1 ms fixed, at
    0.01 ms a prompt token: 500 prompt tokens (5 ms of matmuls) hide under the reads; 1,000
    (10 ms) make the step compute-bound; in two passes the weights are read twice."""
    d = C.DecodeStep(memory_s=10e-3, weights_s=8e-3, compute_s=2e-3, fixed_s=1e-3,
                     prompt_token_s=1e-5)
    assert d.seconds() == pytest.approx(11e-3)
    assert d.mixed(500) == pytest.approx(11e-3)           # max(10, 2 + 5) + 1
    assert d.mixed(1000) == pytest.approx(13e-3)          # max(10, 2 + 10) + 1
    assert d.mixed(1000, 2) == pytest.approx(20e-3)       # max(10 + 8, 12) + 2 x 1
    assert d.mixed(0, 0.5) == pytest.approx(11e-3)        # never less than one pass
    # beside a prompt's pass, decodes with 3 ms of matmuls add their 2 ms of KV reads to a
    # read-bound pass and their matmuls to a compute-bound one
    e = C.DecodeStep(memory_s=10e-3, weights_s=8e-3, compute_s=3e-3, fixed_s=1e-3,
                     prompt_token_s=1e-5)
    assert e.added_to(100) == pytest.approx(2e-3)         # max(10, 3 + 1) - max(8, 1)
    assert e.added_to(1000) == pytest.approx(3e-3)        # max(10, 3 + 10) - max(8, 10)


def test_a_point_runs_the_new_prompts_in_chunks_beside_the_decodes():
    """vLLM V1 on an H100: a step's budget is 8,192 tokens (``vllm serve``'s default on GPUs
    of 70 GiB or more); an 8,192-token prompt beside ``n - 1`` decodes goes in
    ``ceil(8192 / (8192 - n + 1))`` chunks, and ``n / 512`` such prompts come in a step."""
    b = base()
    for users in (1, 8, 32):
        p = S.load_point(b, users)
        d = resolve(b.model, b.plan.with_changes(micro_batch=users), b.gpu).time.decode_step
        alone = max(d.memory_s, d.compute_s) + d.fixed_s
        size = 8192 / math.ceil(8192 / (8192 - users + 1))
        passes = max((users + size) / 8192, 1.0)
        carrying = max(d.memory_s + (passes - 1) * d.weights_s,
                       d.compute_s + size * d.prompt_token_s) + passes * d.fixed_s
        step = alone + users * 8192 / 512 / size * (carrying - alone)
        assert p.step_s == pytest.approx(step)
        assert p.tokens_per_s_user == pytest.approx(1.0 / step)
        assert p.tokens_per_s_total == pytest.approx(users / step)
        # the prompt's matmuls are more than the step's reads: a chunk's step is compute-bound
        assert carrying > alone
    # one user alone waits only for its own prompt
    assert S.load_point(b, 1).first_token_s == pytest.approx(
        resolve(b.model, b.plan, b.gpu).time.prefill_seconds)


def test_llama_server_reads_the_weights_once_per_micro_batch_of_a_mixed_step():
    """llama-server adds its slots' decode tokens and then prompt tokens up to ``n_batch``
    (2,048) to one batch, which ``llama_decode`` runs in micro-batches of ``n_ubatch`` (512),
    each reading the weights: a 2,000-token prompt beside 3 decodes is one chunk in 2,003 /
    512 passes."""
    b = base(gpu="rtx-4090", framework="llama.cpp", seq=2000, new=500, quant="q4_k_m")
    p = S.load_point(b, 4)
    d = resolve(b.model, b.plan.with_changes(micro_batch=4), b.gpu).time.decode_step
    passes = (4 + 2000) / 512
    carrying = max(d.memory_s + (passes - 1) * d.weights_s,
                   d.compute_s + 2000 * d.prompt_token_s) + passes * d.fixed_s
    alone = max(d.memory_s, d.compute_s) + d.fixed_s
    assert p.step_s == pytest.approx(alone + 4 / 500 * (carrying - alone))


def test_v0_runs_a_prompt_in_a_step_of_its_own_and_splits_the_gpus_time():
    """vLLM before 0.8 (V0) chunks prompts only past 32K of context: below it a prompt runs
    alone while the decodes wait, so the GPU's time splits between ``n r / new`` prompts of
    ``T_pf`` each and ``r`` decode steps a second."""
    b = base(engine_version="0.6.3")
    assert b.engine.settings["chunked_prefill"] is False
    assert base(engine_version="0.6.3", seq=40_000).engine.settings["chunked_prefill"] is True
    one = resolve(b.model, b.plan, b.gpu)
    for users in (1, 8):
        p = S.load_point(b, users)
        many = resolve(b.model, b.plan.with_changes(micro_batch=users), b.gpu)
        step = users / many.time.decode_tokens_per_s
        assert p.step_s == pytest.approx(step)
        r = p.tokens_per_s_user
        assert users * r / 512 * one.time.prefill_seconds + r * step == pytest.approx(1.0)
        # the new prompt waits for one step of the other users' decodes
        if users > 1:
            fewer = resolve(b.model, b.plan.with_changes(micro_batch=users - 1), b.gpu)
            assert p.first_token_s == pytest.approx(
                one.time.prefill_seconds + (users - 1) / fewer.time.decode_tokens_per_s)


def test_gpt_oss_shows_its_first_text_three_decode_steps_after_its_prompt():
    """gpt-oss opens every reply with the harmony channel header, ``<|channel|>analysis
    <|message|>`` (openai/harmony docs/format.md): the prefill yields the first of those three
    tokens, and the first text a streaming client sees comes three steps later. The 1,000-token
    prompt goes in one chunk (vLLM's 8,192-token budget on an H100) beside the other users'
    decodes, which add their KV reads and matmuls to the chunk's pass."""
    plan = Plan(task="infer", framework="vllm", seq_len=1000, new_tokens=900)
    b = resolve(MODELS["gpt-oss-20b"], plan, GPUS["h100-pcie"])
    prompt = b.time.prefill_seconds
    for users in (1, 8):
        p = S.load_point(b, users)
        others = 0.0
        if users > 1:
            d = resolve(b.model, plan.with_changes(micro_batch=users - 1), b.gpu
                        ).time.decode_step
            matmuls = 1000 * d.prompt_token_s
            others = max(d.memory_s, d.compute_s + matmuls) - max(d.weights_s, matmuls)
            assert others > 0
        assert p.first_token_s == pytest.approx(prompt + others + 3 * p.step_s)
    # a model without a header: the first token is the prompt's own
    assert S.load_point(base(seq=1000, new=900), 1).first_token_s == pytest.approx(
        resolve(MODELS["llama-3.1-8b"], plan, GPUS["h100-sxm"]).time.prefill_seconds)


def test_more_users_mean_more_tokens_in_all_and_fewer_each():
    points = S.curve(base(), (1, 2, 4, 8, 16))
    totals = [p.tokens_per_s_total for p in points]
    each = [p.tokens_per_s_user for p in points]
    assert totals == sorted(totals) and each == sorted(each, reverse=True)
    firsts = [p.first_token_s for p in points]
    assert firsts == sorted(firsts)  # each chunk of the prompt shares a step with more decodes


def test_vllm_serves_as_many_as_its_kv_pool_holds():
    b = base()
    pool = b.engine.capacity_tokens
    c = S.capacity(b, min_tokens_per_s=0.001)
    # a slow enough floor: the pool decides, floor(pool tokens / (8,192 + 512))
    assert c.users == pool // 8704
    assert c.point.fits and not S.load_point(b, c.users + 1).fits
    assert S.load_point(b, c.users + 1).limit == "kv pool"
    # past the pool only as many run as it holds: the total is theirs, shared by everyone
    held, over = S.load_point(b, c.users), S.load_point(b, 2 * c.users + 5)
    assert over.tokens_per_s_total == pytest.approx(held.tokens_per_s_total)
    assert over.tokens_per_s_user == pytest.approx(held.tokens_per_s_total / (2 * c.users + 5))


def test_the_speed_floor_decides_when_the_pool_is_large():
    b = base(seq=512, new=256)
    c = S.capacity(b, min_tokens_per_s=40.0)
    assert c.point.tokens_per_s_user >= 40.0
    assert S.load_point(b, c.users + 1).tokens_per_s_user < 40.0


def test_llama_server_slots_are_limited_by_the_cards_memory():
    # every layer on the card (-ngl 33): left unset, --fit would move layers to host RAM
    b = base(gpu="rtx-4090", framework="llama.cpp", quant="q4_k_m", gpu_layers=33)
    c = S.capacity(b, min_tokens_per_s=0.001)
    assert c.point.fits
    over = S.load_point(b, c.users + 1)
    assert not over.fits and over.limit == "memory"
    # n slots hold n x (prompt + new) cells of cache, all allocated at start
    assert over.kv_tokens == (c.users + 1) * 8704


def test_left_unset_the_servers_layers_stay_where_the_plan_puts_them():
    """A plan that leaves -ngl to llama.cpp has every layer on a 4090 (Q4_K_M 8B): its
    server's slots are counted with those layers there, as the fit map counts memory, not
    with the layers --fit would move to host RAM to make room for more slots."""
    b = base(gpu="rtx-4090", framework="llama.cpp", quant="q4_k_m")
    assert b.engine.settings["n_gpu_layers"] == 33
    pinned = base(gpu="rtx-4090", framework="llama.cpp", quant="q4_k_m", gpu_layers=33)
    c, c_pinned = (S.capacity(x, min_tokens_per_s=0.001) for x in (b, pinned))
    assert c.users == c_pinned.users
    over = S.load_point(b, c.users + 1)
    assert not over.fits and over.limit == "memory"
    # the fit of n slots is that of the plan with n sequences and all 33 layers on the card
    n = c.users
    plan = Plan(task="infer", framework="llama.cpp", quant="q4_k_m", seq_len=8192,
                new_tokens=512, micro_batch=n, gpu_layers=33)
    assert resolve(MODELS["llama-3.1-8b"], plan, GPUS["rtx-4090"]).fits


def test_the_sentence_names_users_context_first_token_and_speed():
    c = S.capacity(base())
    p = c.point
    assert c.sentence() == (f"{p.users} users at 8,704 tokens of context: first token in "
                            f"{p.first_token_s:.2f} s, {p.tokens_per_s_user:.0f} tokens/s each "
                            f"({p.tokens_per_s_total:,.0f} in all) with --max-num-seqs "
                            f"{p.users}")
    # a plan that already runs that many says no flag
    wide = S.capacity(base(micro_batch=256))
    assert wide.users == c.users and wide.setting == ""
    # reading speed: 238 words/min (Brysbaert 2019) x 1.33 tokens per word
    assert pytest.approx(238 / 60 * 1.33) == S.READING_TOKENS_PER_S
    slow = S.capacity(base(gpu="rtx-3090"), max_first_token_s=0.5)
    assert slow.sentence().endswith("the first token takes over 0.5 s")


def test_estimate_prints_and_returns_the_capacity():
    flags = ["estimate", "--model", "llama-3.1-8b", "--task", "infer", "--framework", "vllm",
             "--gpu", "h100-sxm", "--seq", "8192", "--new-tokens", "512"]
    code, out, _ = run_cli(*flags, "--json")
    assert code == 0
    serving = json.loads(out)["serving"]
    c = S.capacity(base())
    assert serving["users"] == c.users and serving["sentence"] == c.sentence()
    assert len(serving["curve"]) == len(S.USERS)
    code, out, _ = run_cli(*flags, "--min-tokens-per-s", "50")
    assert code == 0 and "read at 50.0 tokens/s or more" in out
    assert S.capacity(base(), min_tokens_per_s=50).sentence() in out
    code, out, _ = run_cli("estimate", "--model", "llama-3.1-8b", "--task", "infer",
                           "--gpu", "rtx-4090", "--json")
    assert "serving" not in json.loads(out)  # transformers serves one stream


def test_users_grid_is_powers_of_two_to_vllms_default_max_num_seqs():
    assert tuple(2**k for k in range(int(math.log2(256)) + 1)) == S.USERS


def test_per_token_prices_of_a_serving_plan_are_at_its_capacity():
    code, out, err = run_cli("suggest", "--model", "llama-3.1-8b", "--task", "infer",
                             "--framework", "vllm", "--seq", "2048", "--new-tokens", "512",
                             "--no-rig", "--json")
    assert code == 0, err
    data = json.loads(out)
    offers = catalog.load_offers()
    row = next(r for r in data["per_token"]["rows"]
               if r["fits"] and r["id"] == "offer:vast-rtx-4090")
    offer = offers["vast-rtx-4090"]
    b = resolve(MODELS["llama-3.1-8b"], Plan(task="infer", framework="vllm", seq_len=2048,
                                             new_tokens=512), GPUS[offer.gpu_id])
    c = S.capacity(b)
    assert row["users"] == c.users
    assert row["tokens_per_s"] == pytest.approx(c.point.tokens_per_s_total)
    # rent per hour over the tokens of an hour at the default 50% utilization
    utilization = data["per_token"]["assumptions"]["utilization"]
    assert row["usd_per_mtok"] == pytest.approx(
        offer.instance_price_usd / (c.point.tokens_per_s_total * 3600 * utilization) * 1e6)
