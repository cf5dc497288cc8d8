"""Fine-tuning frameworks: what each keeps in GPU memory during a training step (how fast its
kernels run the step: :mod:`.framework_speed`).

The memory model of :mod:`.memory` is the Hugging Face path (transformers + PEFT + TRL). The
other frameworks run the same model with different code, and the differences are a handful
of terms, each derived here from the framework's own code or documentation:

===========  =================================================================================
``auto``     The estimate as it stood before frameworks were named: the Hugging Face path's
             generic terms (:mod:`.memory`) without the ones below that only a named
             framework adds (kept so that a plan that names no framework reads as before).
``hf``       Hugging Face transformers + PEFT, QLoRA as PEFT documents it
             (``prepare_model_for_kbit_training``, then ``get_peft_model``).
``unsloth``  Unsloth: fused LoRA autograd functions, checkpointed block inputs offloaded to
             host RAM, a cross-entropy that never materialises the logits.
``torchtune``  PyTorch torchtune recipes: everything in bf16 (``dtype: bf16``), the output
             projected and upcast in chunks for the loss.
``axolotl``  Axolotl: the Hugging Face path configured from YAML. For QLoRA it calls PEFT's
             ``prepare_model_for_kbit_training`` and then casts the norms and embeddings back
             to the training dtype "for flash-attn compatibility" (``src/axolotl/utils/
             models.py``): a bf16 residual stream. Its Liger and Cut Cross Entropy plugins
             are off unless the YAML names them.
===========  =================================================================================

Terms (all per GPU, b = micro-batch, s = sequence, h = d_model, q = query width, k = key/value
width, f = MLP width of the experts a token passes through, V = vocabulary, L = layers, e =
bytes per 16-bit activation element):

* **Loss buffers** (:func:`loss_bytes`), at the forward pass's peak:

  - ``hf``/``axolotl``: the bf16 logits the model returns (2), their fp32 upcast (4) and the
    fp32 log-softmax ``cross_entropy`` saves for the backward pass (4): ``10 b s V`` bytes
    (:func:`.memory.logits_bytes`). Source: transformers ``loss/loss_utils.py``
    ``ForCausalLMLoss`` (``logits = logits.float()``; labels are padded rather than the logits
    sliced, huggingface/transformers@d0fed636753e); PyTorch's ``log_softmax`` backward reads
    its output.
  - ``unsloth``: Cut Cross-Entropy (Wijmans et al. 2024, arXiv:2411.09009, in Unsloth since
    December 2024, unsloth.ai/blog/llama3-3): logits are computed block by block in on-chip
    memory and recomputed in the backward pass; what stays is the fp32 log-sum-exp per token,
    ``4 b s`` bytes.
  - ``megatron``: the vocabulary-parallel cross-entropy upcasts each rank's bf16 logits to
    fp32 (``calculate_logits_max``: ``vocab_parallel_logits.float()``, 4 beside the 2 the
    output layer wrote) and turns them into the softmax in place (``torch.exp(..., out=)``),
    the one tensor its backward pass keeps: ``6 b s V`` at the peak (over ``tp`` ranks with
    tensor parallelism), ``4 b s V`` in fp32 where the cast copies nothing
    (NVIDIA/Megatron-LM @d98e8a64 ``megatron/core/tensor_parallel/cross_entropy.py``).
  - ``torchtune``: ``CEWithChunkedOutputLoss`` (the Llama 3.1 QLoRA recipe's loss,
    pytorch/torchtune@0b3e04ad ``recipes/configs/llama3_1/8B_qlora_single_device.yaml``):
    the model returns the logits as ``n = 8`` bf16 chunks (2), each chunk is upcast (4/n at a
    time) and its fp32 log-softmax saved (4): ``(6 + 4/n) b s V`` bytes
    (``torchtune/modules/loss/ce_chunked_output_loss.py``, pytorch/torchtune@10ff7cd2).

* **Hugging Face QLoRA in fp32** (:func:`kbit_upcast_weight_bytes`,
  :func:`kbit_block_bytes`). PEFT's ``prepare_model_for_kbit_training`` casts every
  non-quantized parameter to fp32 (huggingface/peft ``src/peft/utils/other.py``, "cast all
  non INT8 parameters to fp32"): the embedding, the LM head and the norms take 4 bytes, and
  under autocast the LM head's matmul runs on a bf16 copy of its weight that the backward
  pass keeps (a frozen weight is not in autocast's cache). (TRL's ``SFTTrainer`` given a
  ``peft_config`` and ``bf16`` casts the embedding and head back to bf16,
  ``peft_module_casting_to_bf16``, keeping the norms fp32; Axolotl casts both back.) The
  embedding output is fp32, ``LlamaRMSNorm`` returns ``weight * x`` in the weight's dtype and
  bitsandbytes' ``Linear4bit`` returns its input's dtype (``out.to(inp_dtype)``), so the
  hidden states between blocks and the MLP's intermediates are fp32. The 4-bit matmul saves
  nothing for the backward pass (``MatMul4Bit`` keeps ``(None, B)``,
  bitsandbytes-foundation/bitsandbytes@012c6606 ``autograd/_functions.py``); each LoRA
  ``lora_A`` under autocast saves its own bf16 cast of the input. Per layer and token (all
  linear layers adapted, FlashAttention):

  ====================================================  ==========================
  attention norm input (fp32)                           4h
  bf16 casts of the norm output, one per adapted q/k/v  2h x (2 or 3)
  FlashAttention: Q, K, V (cast to bf16), output, LSE   2(q + 2k) + 2q + 4a
  MLP norm input (fp32)                                 4h
  bf16 casts of the MLP input for gate and up adapters  2 x 2h
  gate out, act(gate), up out (fp32)                    3 x 4f
  bf16 cast of act(gate) x up for the down adapter      2f
  LoRA B inputs (bf16, rank r)                          2r per adapted matrix
  ====================================================  ==========================

  and checkpointed block inputs are ``4 b s h`` bytes per layer.

* **Fused LoRA kernels** (``unsloth``, every linear adapted): ``LoRA_MLP`` saves ``X, e, g``
  (input, gate and up outputs) and rebuilds ``act(e) x g`` in its backward pass
  (unslothai/unsloth@0050c73e ``unsloth/kernels/fast_lora.py``): the generic block's
  ``act(gate)`` and product, ``2 f e`` bytes per token, are not kept.

* **Offloaded gradient checkpointing** (``unsloth``, full checkpointing):
  ``UnslothCheckpointFunction`` copies each block's input into pinned host buffers on a
  side stream in the forward pass and back into a GPU buffer in the backward pass
  (unslothai/unsloth-zoo@0373fcc5 ``unsloth_zoo/gradient_checkpointing.py``). The last
  block's input is not offloaded ("Disable offloading on the last layer"), the reload is
  double-buffered (``GPU_BUFFERS`` and ``GPU_BUFFERS_B``), and inputs of 2 MiB or less stay
  on the GPU (``MINIMUM_SIZE``). The GPU keeps :data:`UNSLOTH_GPU_BLOCK_INPUTS` block
  inputs, ``3 b s h e``; host RAM holds the other ``(L - 1) b s h x 2`` bytes (Unsloth's
  own figure counts all L: 89,000 tokens x 80 layers x 8192 x 2 bytes = 109 GB for
  Llama 3.3 70B).

* **The backward working set of one block** (:func:`backward_bytes`, every framework): the
  gradient arriving at the block (h), the MLP's input-side gradients (``d(act x up)``,
  ``d act``, ``d up``: 3f gated, 2f otherwise) and, with full checkpointing, the recomputed
  block output (h), in the activation dtype (fp32 for Hugging Face QLoRA). Unsloth's
  ``LoRA_MLP.backward`` writes its SwiGLU gradients into ``e`` and ``g`` in place and ``dX``
  into ``X``: only ``DW`` (f) is new. The generic (``auto``) estimate leaves it out.

* **Dequantization buffer** (:func:`dequant_buffer_bytes`, any quantized base): every 4-bit
  (or 8-bit) matmul dequantizes its weight to 16 bits first (``F.dequantize_4bit(B, ...)``;
  Unsloth's ``fast_dequantize`` into one global buffer; torchao's ``linear_nf4``), so one
  copy of the largest block linear, ``2 x d_in x d_out`` bytes, is alive during every step.

* **Adapters and precision** (``torchtune``): the recipe builds the model under
  ``set_default_dtype(bf16)`` and checks that the adapter parameters are bf16
  (``recipes/lora_finetune_single_device.py``): LoRA weights and gradients take 2 bytes and
  AdamW's moments, kept in the parameters' dtype, 2 each; full fine-tunes train in pure bf16
  (torchtune has no mixed precision: ``dtype`` is ``bf16`` or ``fp32``).

* **Paged optimizers** (bitsandbytes ``paged_adamw_8bit``/``paged_adamw_32bit``, Axolotl's
  example QLoRA default): the states live in CUDA unified memory and "transfer from the GPU
  to the CPU when GPU memory is exhausted" (bitsandbytes docs, optimizers reference). Until
  then they are ordinary GPU memory, so the estimate counts them on the GPU; a plan over its
  card by less than its optimizer states may still run, paying PCIe transfers for the
  evicted pages.

Speed (:func:`step_seconds`): the frameworks run the same matmuls, so their differences are
memory-bound passes and transfers, timed against the GPU's bandwidths:

* Unsloth's Triton kernels fuse RMSNorm, RoPE, SwiGLU and the LoRA ``B`` product into the
  matmul (``addmm_``); the bytes the unfused PyTorch ops move are in
  :func:`fused_bytes_saved_per_token`. Its cross-entropy skips the full-logits passes but
  recomputes the logits in the backward pass (``2 h V`` FLOPs per token).
* Offloaded checkpoints cross the host link twice per step (``2 L b s h e`` bytes); the copy
  runs beside the compute and only what exceeds the compute time is added.

Unsloth's published speed-ups (2x and more, unsloth.ai/blog/llama3-3) are its own
measurements: they are used as a check in ``benchmarks/context_accuracy.py``, never as a
constant here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .architecture import BlockShape, ModelShape
from .model import ModelLike, model_shape
from .plan import TRAIN_FRAMEWORKS, Plan
from .quant import quantized_weights, weight_quant

#: Block inputs Unsloth's offloaded checkpointing keeps on the GPU: the last block's (never
#: offloaded) and two reload buffers (double buffering), unslothai/unsloth-zoo@0373fcc5.
UNSLOTH_GPU_BLOCK_INPUTS = 3
#: Block inputs of this many bytes or fewer are not offloaded (``MINIMUM_SIZE``: 2 MiB).
UNSLOTH_OFFLOAD_MIN_BYTES = 2 * 1024 * 1024

#: Host-link bandwidth assumed when the GPU's is unknown: PCIe 4.0 x16, 16 x 1.969 GB/s per
#: direction after 128b/130b encoding (PCI-SIG PCIe 4.0 base specification).
DEFAULT_HOST_LINK_GB_S = 31.5


@dataclass(frozen=True)
class Framework:
    """How one fine-tuning framework runs a training step.

    Attributes:
        id: ``hf``, ``unsloth``, ``torchtune``, ``axolotl`` or ``megatron``.
        name: for people.
        loss: ``upcast`` (full logits upcast to fp32), ``cce`` (Cut Cross-Entropy: no
            logits kept), ``chunked`` (logits in chunks, upcast one chunk at a time) or
            ``vocab_parallel`` (Megatron's: an fp32 copy turned into the softmax in place).
        loss_chunks: chunks of the ``chunked`` loss.
        offload_checkpoints: full checkpointing keeps the block inputs in host RAM.
        fused_lora: LoRA autograd functions that keep only the MLP's input and its gate and
            up outputs (and fuse the adapters into the matmuls).
        kbit_fp32_upcast: QLoRA prepared by PEFT's ``prepare_model_for_kbit_training`` and
            left so: every non-quantized parameter in fp32 (embedding, LM head, norms), so an
            fp32 residual stream.
        adapter_bytes: bytes per LoRA weight (and per gradient element).
        pure_bf16: 16-bit training keeps no fp32 copy (torchtune ``dtype: bf16``).
        fused_elementwise: norms, rotary embedding and SwiGLU in fused kernels.
        checkpointing: what "full" checkpointing is called in this framework.
        source: where the defaults come from.
        derived: whether the terms only a named framework adds apply (the backward working
            set, the dequantization buffer, QLoRA's fp32 residual stream); False for the
            generic ``auto`` estimate.
    """

    id: str
    name: str
    loss: str
    loss_chunks: int
    offload_checkpoints: bool
    fused_lora: bool
    kbit_fp32_upcast: bool
    adapter_bytes: float
    pure_bf16: bool
    fused_elementwise: bool
    checkpointing: str
    source: str
    derived: bool = True


#: The estimate for a plan that names no framework (``framework = "auto"``): the generic
#: Hugging Face-like terms of :mod:`.memory`, as before frameworks were named.
GENERIC = Framework(
    "auto", "generic (Hugging Face-like; name a framework for its own terms)", "upcast", 1,
    False, False, False, 4.0, False, False, "full", "gpuadvisor.core.memory", derived=False)

FRAMEWORKS = {
    "hf": Framework(
        "hf", "Hugging Face transformers + PEFT", "upcast", 1, False, False,
        True, 4.0, False, False, "gradient_checkpointing=True",
        "transformers ForCausalLMLoss; peft prepare_model_for_kbit_training"),
    "unsloth": Framework(
        "unsloth", "Unsloth", "cce", 1, True, True, False, 4.0, False, True,
        "use_gradient_checkpointing='unsloth' (offloaded to host RAM)",
        "unsloth/kernels/fast_lora.py; unsloth_zoo gradient_checkpointing.py; "
        "unsloth.ai/blog/llama3-3 (Cut Cross-Entropy)"),
    "torchtune": Framework(
        "torchtune", "torchtune", "chunked", 8, False, False, False, 2.0, True, False,
        "enable_activation_checkpointing: True (activation offloading off)",
        "recipes/configs/llama3_1/8B_qlora_single_device.yaml (CEWithChunkedOutputLoss, "
        "dtype bf16)"),
    "axolotl": Framework(
        "axolotl", "Axolotl (Hugging Face path; Liger and CCE plugins off)", "upcast", 1,
        False, False, False, 4.0, False, False, "gradient_checkpointing: true",
        "examples/llama-3/qlora.yml; src/axolotl/utils/models.py "
        "(prepare_model_for_kbit_training)"),
    "megatron": Framework(
        "megatron", "Megatron-LM / NeMo (tensor, pipeline, context and expert parallel)",
        "vocab_parallel", 1, False, False, False, 4.0, False, False,
        "--recompute-granularity full --recompute-method uniform",
        "NVIDIA/Megatron-LM @d98e8a64 megatron/core/tensor_parallel/cross_entropy.py "
        "(VocabParallelCrossEntropy); megatron/training/arguments.py"),
}
assert tuple(FRAMEWORKS) == TRAIN_FRAMEWORKS


def framework_of(plan: Plan) -> Framework:
    """The fine-tuning framework that runs a training ``plan``: Hugging Face transformers +
    PEFT (``hf``) when it names none (``auto``), the stack most fine-tunes run on.

    Raises:
        ValueError: the plan is an inference plan, or names no fine-tuning framework.
    """
    return framework_named(plan.effective_framework)


def framework_named(name: str) -> Framework:
    """The :class:`Framework` called ``name``.

    Raises:
        ValueError: ``name`` is not one of :data:`~.plan.TRAIN_FRAMEWORKS` (the message says
            which names are).
    """
    found = FRAMEWORKS.get(name) if isinstance(name, str) else None
    if found is None:
        raise ValueError(f"framework {name!r} is not a fine-tuning framework; choose one of "
                         f"{', '.join(TRAIN_FRAMEWORKS)}")
    return found


def training_framework(plan: Plan) -> Framework | None:
    """The framework of a training plan, ``None`` for inference."""
    return framework_of(plan) if plan.is_training else None


def costed_plan(plan: Plan) -> Plan:
    """The plan as the framework runs it: torchtune trains 16-bit plans in pure bf16."""
    fw = training_framework(plan)
    if fw is not None and fw.pure_bf16 and plan.precision in ("fp16", "bf16"):
        return plan.with_changes(precision="bf16-pure")
    return plan


def adapter_param_bytes(plan: Plan) -> float:
    """Bytes per LoRA weight and per adapter gradient element: 4 (PEFT keeps adapters in
    fp32), 2 under torchtune (bf16 everywhere); 4 in fp32 training."""
    fw = training_framework(plan)
    if fw is None or plan.precision == "fp32":
        return 4.0
    return fw.adapter_bytes


def adapter_state_scale(plan: Plan) -> float:
    """Scale of 32-bit optimizer states of adapters: 0.5 when the adapters are bf16 (torch's
    AdamW keeps its moments in the parameter's dtype), else 1."""
    return 0.5 if adapter_param_bytes(plan) == 2.0 else 1.0


def _applies(m: ModelShape, plan: Plan) -> Framework | None:
    """The framework when its activation and loss terms apply (training a decoder)."""
    fw = training_framework(plan)
    return fw if fw is not None and m.kind == "decoder" else None


def _kbit(fw: Framework, plan: Plan) -> bool:
    """Whether PEFT's ``prepare_model_for_kbit_training`` upcasts the plan's QLoRA model:
    not when the quantized base is sharded over GPUs (ZeRO-3 / FSDP). TRL's SFTTrainer
    finds such a model's 4-bit parameters loaded on the CPU or the meta device and skips
    it: "QLoRA + FSDP / DS-Zero3 - one should never call peft_module_casting_to_bf16 or
    prepare_model_for_kbit_training" (trl/trainer/sft_trainer.py, ``is_sharded_qlora``);
    the unquantized parameters then stay in the 4-bit storage dtype's 16 bits."""
    sharded = plan.n_gpus > 1 and plan.zero_stage >= 3
    return (fw.kbit_fp32_upcast and plan.task == "qlora" and plan.precision != "fp32"
            and not sharded)


def _fused(fw: Framework, plan: Plan) -> bool:
    return fw.fused_lora and plan.is_adapter and plan.lora_targets == "all"


def routed_width(blk: BlockShape) -> int:
    """MLP width a token passes through: k routed experts plus a shared expert."""
    return blk.d_ff * blk.experts_per_token + blk.shared_d_ff


# --------------------------------------------------------------------------- loss
#: Bytes a training step's loss moves per token and vocabulary entry, forward and backward
#: (beyond the LM head's GEMM, which writes the 16-bit logits), by how the loss runs
#: (:func:`step_loss`). The one count both the layout model
#: (:func:`.parallel.step.loss_bytes_per_token`) and the frameworks' speed terms
#: (:mod:`.framework_speed`) use:
#:
#: * ``upcast`` (Hugging Face ``ForCausalLMLoss``, eager PyTorch): forward, the upcast reads
#:   the 16-bit logits and writes fp32 (2 + 4), ``log_softmax`` reads them for the maximum and
#:   again for the sum of exponentials and writes its output (4 + 4 + 4); backward,
#:   ``nll_loss``'s gradient is a dense fp32 tensor written (4), ``log_softmax``'s backward
#:   reads it and the saved output and writes its gradient (4 + 4 + 4), the upcast's backward
#:   reads that and writes 16 bits (4 + 2): 18 + 22 = 40.
#: * ``chunked`` (torchtune ``CEWithChunkedOutputLoss``): the same passes, a chunk at a time: 40.
#: * ``vocab_parallel`` (Megatron's ``VocabParallelCrossEntropy``, Megatron-LM's default):
#:   forward, the upcast (2 + 4), the maximum (4), subtracting it in place (4 + 4), ``exp`` in
#:   place (4 + 4), the sum (4) and the division into the softmax in place (4 + 4); backward,
#:   the gradient built in the saved softmax and scaled in place (4 + 4), cast to 16 bits
#:   (4 + 2): 38 + 14 = 52. (Its ``--cross-entropy-loss-fusion`` path, which NeMo's recipes
#:   turn on, jit-fuses the upcast into the maximum and keeps the other passes, 44 by the same
#:   count of ``megatron/core/fusions/fused_cross_entropy.py`` @0cb4a9c8; the default's 52 is
#:   kept.)
#: * ``fused`` (one cross-entropy kernel: llm.c's fused classifier, flash-attn's
#:   ``CrossEntropyLoss``, torch.compile's generated kernel): the forward reads the 16-bit
#:   logits once for the log-sum-exp (2), the backward reads them again and writes the 16-bit
#:   gradient over them (2 + 2): 6.
#: * ``cce`` (Cut Cross-Entropy, Unsloth): the logits never leave on-chip memory: 0 (the
#:   logits are recomputed in the backward pass instead: :func:`loss_recomputes_logits`).
LOSS_BYTES_PER_VOCAB = {"upcast": 40.0, "chunked": 40.0, "vocab_parallel": 52.0,
                        "fused": 6.0, "cce": 0.0}


def step_loss(kind: str, kernels: str = "eager") -> str:
    """How a framework's loss ``kind`` (:attr:`Framework.loss`) runs in a step of
    ``kernels``: a PyTorch loss (``upcast``, ``chunked``) becomes one ``fused`` kernel when
    the step runs fused kernels (``--kernels fused``: llm.c, torch.compile, Liger); Megatron's
    and Cut Cross-Entropy keep their own."""
    if kind in ("upcast", "chunked") and kernels == "fused":
        return "fused"
    return kind


def loss_bytes_per_vocab(kind: str, kernels: str = "eager") -> float:
    """:data:`LOSS_BYTES_PER_VOCAB` of a framework's loss ``kind`` in a step of ``kernels``
    (:func:`step_loss`)."""
    return LOSS_BYTES_PER_VOCAB[step_loss(kind, kernels)]


def plan_loss(plan: Plan) -> str:
    """The loss kind of a training ``plan``: its framework's (the generic ``upcast`` when
    it names none, or for inference)."""
    return (training_framework(plan) or GENERIC).loss


def loss_recomputes_logits(kind: str) -> bool:
    """Whether the loss recomputes the logits in the backward pass (Cut Cross-Entropy: one
    more forward GEMM of the LM head, ``2 h V`` FLOPs per token)."""
    return kind == "cce"


def loss_bytes(model: ModelLike, plan: Plan, b, s, hf_bytes, kernels: str = "eager"):
    """Loss buffers of a decoder's training step at the forward pass's peak, its loss run
    as a step of ``kernels`` runs it (:func:`step_loss`).

    ``hf_bytes`` is :func:`.memory.logits_bytes` (the Hugging Face figure, ``10 b s V``,
    ``8 b s V`` in fp32), returned as is for ``hf``/``axolotl`` and for non-decoders. See the
    module docstring for ``unsloth`` (``4 b s``) and ``torchtune`` (``(6 + 4/n) b s V``; in
    fp32 the chunks are already fp32: ``(4 + 4) b s V``). A ``fused`` loss keeps the logits
    the head wrote (2, or 4 in fp32) and the fp32 log-sum-exp per token (its backward writes
    the gradient over the logits): ``2 b s V + 4 b s``.
    """
    m = model_shape(model)
    fw = _applies(m, plan)
    if fw is None:
        return hf_bytes
    kind = step_loss(fw.loss, kernels)
    if kind == "fused":
        per = 4.0 if plan.precision == "fp32" else 2.0
        return per * b * s * m.vocab_size + 4.0 * b * s + 0.0 * hf_bytes
    if kind == "upcast":
        return hf_bytes
    if kind == "cce":
        return 4.0 * b * s + 0.0 * hf_bytes
    if kind == "vocab_parallel":
        per = 4.0 if plan.precision == "fp32" else 6.0
        return per * b * s * m.vocab_size + 0.0 * hf_bytes
    if plan.precision == "fp32":
        return 8.0 * b * s * m.vocab_size + 0.0 * hf_bytes
    return (6.0 + 4.0 / fw.loss_chunks) * b * s * m.vocab_size + 0.0 * hf_bytes


# --------------------------------------------------------------------------- activations
def kbit_block_bytes(blk: BlockShape, plan: Plan, b, s, attention: str):
    """Saved bytes of one block in Hugging Face QLoRA (fp32 residual stream; table in the
    module docstring). ``attention``: ``flash``, ``scores`` (eager) or ``recompute`` (eager,
    scores rebuilt: only Q, K, V kept)."""
    h, q, k, a = blk.d_model, blk.q_dim, blk.kv_dim, blk.n_heads
    f = routed_width(blk)
    targets, r = plan.lora_targets, plan.effective_lora_rank
    qkv_casts = 2 if targets == "qv" else 3
    mlp_lora = targets == "all"
    sb = b * s
    per_token = 4 * h + 2 * h * qkv_casts + 4 * h
    if attention == "flash":
        per_token += 2 * (q + 2 * k) + 2 * q + 4 * a
        scores = 0.0 * sb
    else:
        # eager: bf16 casts of Q and the expanded K, V for the two matmuls; the fp32 softmax
        # output (softmax(..., dtype=float32) saves it) and its bf16 copy for probs @ V.
        per_token += 2 * 3 * q
        scores = 6.0 * a * s * s * b if attention == "scores" else 0.0 * sb
    if blk.gated_mlp:
        per_token += 12 * f + (2 * 2 * h + 2 * f if mlp_lora else 0)
    else:
        per_token += 4 * f + (2 * h + 2 * f if mlp_lora else 0)
    adapted = {"qv": 2, "attn": 4, "all": 4 + blk.mlp_matrices}[targets]
    per_token += 2 * r * adapted
    return sb * per_token + scores


def backward_bytes(model: ModelLike, plan: Plan, b, s, e: float):
    """One block's backward working set (module docstring), for the widest block kind."""
    m = model_shape(model)
    fw = training_framework(plan)
    if fw is None or not fw.derived or m.kind == "opaque":
        return 0.0 * b * s
    h = m.d_model
    f = max(routed_width(blk) for blk, _ in m.blocks)
    gated = any(blk.gated_mlp for blk, _ in m.blocks)
    output = h if plan.checkpointing == "full" else 0
    if m.kind == "decoder" and _fused(fw, plan) and gated:
        per_token = e * (h + f + output)
    elif m.kind == "decoder" and _kbit(fw, plan):
        per_token = 4.0 * (h + (3 if gated else 2) * f + output)
    else:
        per_token = e * (h + (3 if gated else 2) * f + output)
    return b * s * per_token


def training_activations(model: ModelLike, plan: Plan, b, s, e: float, generic):
    """Activation bytes on the GPU and in host RAM for a training step.

    Args:
        model: the architecture.
        plan: the (costed) plan.
        b, s: micro-batch and sequence (scalars or arrays).
        e: bytes per activation element (2; 4 in fp32).
        generic: :func:`.memory.activation_bytes` for the plan (the Hugging Face terms).

    Returns:
        ``(gpu_bytes, host_bytes)``: the framework's activations plus :func:`backward_bytes`,
        and what offloaded checkpointing keeps in host RAM.
    """
    m = model_shape(model)
    extra = backward_bytes(m, plan, b, s, e)
    fw = _applies(m, plan)
    if fw is None:
        return generic + extra, 0.0 * generic
    sbh = b * s * m.d_model
    full = plan.checkpointing == "full"
    if _kbit(fw, plan):
        if plan.recompute_layers is not None:
            raise ValueError("recompute_layers: Hugging Face QLoRA recomputes every layer "
                             "(prepare_model_for_kbit_training's gradient checkpointing)")
        return _kbit_activations(m, plan, b, s) + extra, 0.0 * generic
    gpu = generic
    if _fused(fw, plan):
        # LoRA_MLP keeps X, e, g: the generic act(gate) and product are not kept, in every
        # block (no checkpointing) or in the one being recomputed (full checkpointing).
        saved = sum(2.0 * e * b * s * (blk.d_ff * blk.experts_per_token) * count
                    for blk, count in m.blocks if blk.gated_mlp)
        widest = max((blk.d_ff * blk.experts_per_token for blk, _ in m.blocks
                      if blk.gated_mlp), default=0)
        if full:
            # the recomputed block, and every block kept whole (partial recomputation)
            kept_share = 1.0 - plan.recomputed_layers(m.n_layers) / m.n_layers
            gpu = gpu - (2.0 * e * b * s * widest + kept_share * saved)
        else:
            gpu = gpu - saved
    host = 0.0 * generic
    if fw.offload_checkpoints and full:
        moved = max(m.n_layers - 1, 0)
        kept = min(m.n_layers, UNSLOTH_GPU_BLOCK_INPUTS)
        offloaded = np.asarray(sbh * 2.0) > UNSLOTH_OFFLOAD_MIN_BYTES
        gpu = gpu - np.where(offloaded, (m.n_layers - kept) * sbh * e, 0.0)
        host = host + np.where(offloaded, moved * sbh * 2.0, 0.0)
        if np.ndim(host) == 0:
            gpu, host = float(gpu), float(host)
    return gpu + extra, host


def _kbit_activations(m: ModelShape, plan: Plan, b, s):
    """Hugging Face QLoRA activations: :func:`kbit_block_bytes` in place of the generic
    block, fp32 checkpoints and outside tensors (the embedding output and the final norm's
    input, both fp32)."""
    sbh = b * s * m.d_model
    outside = 4.0 * sbh + 4.0 * sbh
    eager = plan.attention == "eager"
    if plan.checkpointing == "full":
        kind = "scores" if eager else "flash"
        block = max(kbit_block_bytes(blk, plan, 1, 1, "flash") for blk, _ in m.blocks)
        scores = kbit_block_bytes(m.block, plan, b, s, kind) - kbit_block_bytes(
            m.block, plan, b, s, "flash") if eager else 0.0
        kept = 4.0 * sbh * m.n_layers
        return kept + block * b * s + scores + outside
    kind = "flash"
    if eager:
        kind = "scores" if plan.checkpointing == "none" else "recompute"
    total = sum(count * kbit_block_bytes(blk, plan, b, s, kind) for blk, count in m.blocks)
    if kind == "recompute":  # one layer rebuilds its scores during its backward pass
        total = total + 6.0 * m.block.n_heads * s * s * b
    return total + outside


def kbit_upcast_weight_bytes(model: ModelLike, plan: Plan) -> float:
    """Weight bytes PEFT's fp32 upcast adds to a Hugging Face QLoRA plan (0 otherwise): 2 more
    bytes for every parameter left unquantized (embedding, LM head, norms, a vision tower)
    and the bf16 copy of the LM head autocast makes for its matmul, ``2 x V x h``."""
    m = model_shape(model)
    fw = training_framework(plan)
    if fw is None or m.kind == "opaque" or not _kbit(fw, plan):
        return 0.0
    quantized, _ = quantized_weights(m, weight_quant(m, plan))
    unquantized = m.params.total - quantized + m.params.vision
    return 2.0 * unquantized + 2.0 * m.head_matmul_params(plan.task)


def dequant_buffer_bytes(model: ModelLike, plan: Plan) -> float:
    """The 16-bit copy of the largest quantized block linear a training step dequantizes
    (0 without a quantized base or for inference)."""
    m = model_shape(model)
    fw = training_framework(plan)
    if fw is None or not fw.derived or plan.effective_quant == "none" or m.kind == "opaque":
        return 0.0
    largest = 0
    for blk, _ in m.blocks:
        largest = max(largest, blk.d_model * blk.q_dim, blk.d_model * blk.kv_dim,
                      blk.d_model * max(blk.d_ff, blk.shared_d_ff))
    return 2.0 * largest


# --------------------------------------------------------------------------- assumptions
def framework_assumptions(model: ModelLike, plan: Plan) -> dict[str, object]:
    """Name -> value for every framework default a training estimate used (empty for
    inference), for the estimate's ``assumptions``."""
    fw = training_framework(plan)
    if fw is None:
        return {}
    m = model_shape(model)
    used: dict[str, object] = {"framework": fw.id, "framework_name": fw.name,
                               "framework_source": fw.source}
    if not fw.derived:
        used["framework_terms"] = ("none: no backward working set, dequantization buffer or "
                                   "fp32 QLoRA residual stream (name hf for them)")
    if m.kind == "decoder":
        used["loss_buffers"] = {
            "upcast": "full logits: bf16 + fp32 upcast + fp32 log-softmax (10 B/entry)",
            "cce": "Cut Cross-Entropy: fp32 log-sum-exp per token, no logits kept",
            "chunked": f"{fw.loss_chunks} bf16 chunks, one upcast at a time, fp32 "
                       "log-softmax kept (6.5 B/entry)",
            "vocab_parallel": "vocabulary-parallel: bf16 logits + an fp32 copy made the "
                              "softmax in place (6 B/entry, over the tensor-parallel ranks)",
        }[fw.loss]
    if plan.checkpointing == "full" and fw.derived:
        used["checkpointing_as"] = fw.checkpointing
        if fw.offload_checkpoints and m.kind == "decoder":
            used["checkpoint_host_bytes_per_token"] = 2.0 * (m.n_layers - 1) * m.d_model
            used["checkpoint_gpu_block_inputs"] = UNSLOTH_GPU_BLOCK_INPUTS
    if plan.is_adapter:
        used["lora_adapter_dtype"] = "bf16" if adapter_param_bytes(plan) == 2.0 else "fp32"
        if _fused(fw, plan) and m.kind == "decoder":
            used["lora_kernels"] = "fused (MLP keeps X, gate and up outputs)"
    if m.kind == "decoder" and _kbit(fw, plan):
        used["qlora_unquantized_dtype"] = ("fp32 (prepare_model_for_kbit_training): embedding, "
                                           "LM head and norms; residual stream fp32")
        used["qlora_upcast_weight_bytes"] = kbit_upcast_weight_bytes(m, plan)
    if fw.pure_bf16 and plan.precision in ("fp16", "bf16"):
        used["precision_as"] = "bf16-pure (torchtune dtype: bf16, no fp32 master copy)"
    if dequant_buffer_bytes(m, plan):
        used["dequant_buffer_bytes"] = dequant_buffer_bytes(m, plan)
    used["optimizer_states_on"] = ("GPU (a paged optimizer moves them to host RAM only when "
                                   "GPU memory runs out)")
    return used
