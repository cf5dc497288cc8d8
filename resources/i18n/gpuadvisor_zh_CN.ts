<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ComingPage</name>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="28"/>
        <source>Coming soon</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="40"/>
        <source>Go to the Plan page</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>CustomModelDialog</name>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="49"/>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="115"/>
        <source>Custom model</source>
        <extracomment>(ModelSpec field, minimum, maximum) of the number inputs, in form order.</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="52"/>
        <source>A decoder-only transformer (LLaMA/GPT style) described by its architecture numbers. The parameter count is derived from them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="59"/>
        <source>My model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="60"/>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="62"/>
        <source>Layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="63"/>
        <source>Hidden size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="64"/>
        <source>Attention heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="65"/>
        <source>Key/value heads (GQA)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="66"/>
        <source>MLP (FFN) size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="67"/>
        <source>Vocabulary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="68"/>
        <source>Context length</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="79"/>
        <source>Gated MLP (SwiGLU, three matrices)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="80"/>
        <source>Tied input/output embeddings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="105"/>
        <source>{name} (custom)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="124"/>
        <source>Custom</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="137"/>
        <source>{count} parameters</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>FitCategories</name>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="100"/>
        <source>fits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="101"/>
        <source>tight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="102"/>
        <source>does not fit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="103"/>
        <source>no GPU chosen</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>FitMapChart</name>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="248"/>
        <source>sequence length (tokens)</source>
        <extracomment>RGBA per category, indexed by the category number (see :mod:`.style`).</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="249"/>
        <source>micro-batch (sequences)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="250"/>
        <source>micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="262"/>
        <source>tight (over {pct:.0f}%)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="271"/>
        <source>your plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="381"/>
        <source>micro-batch {mb}, seq {seq}: {size}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="390"/>
        <source>{cell} — {verdict}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Labels</name>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="15"/>
        <source>Pre-training</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="16"/>
        <source>Full fine-tune</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="17"/>
        <source>LoRA fine-tune</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="18"/>
        <source>QLoRA fine-tune</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="19"/>
        <source>Inference</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="22"/>
        <source>fp32</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="23"/>
        <source>fp16 mixed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="24"/>
        <source>bf16 mixed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="25"/>
        <source>pure bf16</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="26"/>
        <source>fp8 (bf16 master)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="29"/>
        <source>AdamW</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="30"/>
        <source>AdamW 8-bit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="31"/>
        <source>Adafactor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="32"/>
        <source>SGD with momentum</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="33"/>
        <source>Lion</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="36"/>
        <source>off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="37"/>
        <source>selective</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="38"/>
        <source>full</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="41"/>
        <source>eager</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="42"/>
        <source>FlashAttention / SDPA</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="45"/>
        <source>none (16-bit)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="46"/>
        <source>int8</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="47"/>
        <source>NF4 (4-bit)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="48"/>
        <source>NF4 + double quant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="49"/>
        <source>int4 (GPTQ/AWQ)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="50"/>
        <source>int3 (GPTQ)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="53"/>
        <source>q, v projections</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="54"/>
        <source>attention (q, k, v, o)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="55"/>
        <source>all linear layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="58"/>
        <source>none (plain DDP)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="59"/>
        <source>ZeRO-1: optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="60"/>
        <source>ZeRO-2: + gradients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="61"/>
        <source>ZeRO-3 / FSDP: all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="64"/>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="65"/>
        <source>optimizer → CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="66"/>
        <source>optimizer + weights → CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="69"/>
        <source>weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="70"/>
        <source>gradients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="71"/>
        <source>optimizer states</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="72"/>
        <source>activations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="73"/>
        <source>logits / loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="74"/>
        <source>KV cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="75"/>
        <source>overhead</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="78"/>
        <source>fits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="79"/>
        <source>fits, but tight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="80"/>
        <source>does not fit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="81"/>
        <source>no GPU chosen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="84"/>
        <source>FlashAttention</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="85"/>
        <source>gradient checkpointing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="86"/>
        <source>smaller micro-batch, more accumulation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="87"/>
        <source>8-bit AdamW</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="88"/>
        <source>LoRA</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="89"/>
        <source>QLoRA</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="90"/>
        <source>more GPUs with ZeRO-3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="91"/>
        <source>CPU offload of the optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="92"/>
        <source>4-bit weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="93"/>
        <source>8-bit KV cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="96"/>
        <source>compute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="97"/>
        <source>communication</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="98"/>
        <source>memory bandwidth</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="101"/>
        <source>assumed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="102"/>
        <source>plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="103"/>
        <source>catalog</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="104"/>
        <source>measured</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LeversPanel</name>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="300"/>
        <source>Make it fit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="326"/>
        <source>Choose a target GPU to see what would make the plan fit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="329"/>
        <source>It fits. These changes would free memory for a larger batch or longer sequences:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="332"/>
        <source>It fits; nothing to change.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="334"/>
        <source>It does not fit. Each change below on its own, cheapest first (click to apply):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="337"/>
        <source>It does not fit, and no single change helps: try a smaller model or a larger GPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="366"/>
        <source>{n} GPUs with ZeRO-3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="375"/>
        <source>fits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="377"/>
        <source>still too big</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="385"/>
        <source>cost: {cost}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="386"/>
        <source>time: {before} → {after}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="119"/>
        <source>Rig</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="119"/>
        <source>Probe</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="119"/>
        <source>Plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="120"/>
        <source>Compare</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="122"/>
        <source>What is in this machine (coming soon)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="123"/>
        <source>Measure this machine (coming soon)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="124"/>
        <source>Will it fit, how long, what to change</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="125"/>
        <source>Your rig, buy, rent or cloud (coming soon)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="148"/>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="149"/>
        <source>&amp;Open plan…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="151"/>
        <source>&amp;Save plan…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="153"/>
        <source>Save plan &amp;as…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="156"/>
        <source>Recent plans</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="160"/>
        <source>&amp;Export page as PNG…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="162"/>
        <source>&amp;Copy summary as Markdown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="167"/>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="173"/>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="175"/>
        <source>&amp;Presentation mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="178"/>
        <source>Full screen, large fonts, thick chart lines, high contrast: for projectors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="180"/>
        <source>&amp;Units</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="184"/>
        <source>GiB (binary, 1024³ bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="185"/>
        <source>GB (decimal, 1000³ bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="200"/>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="201"/>
        <source>&amp;About gpuadvisor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="254"/>
        <source>Settings were reset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="262"/>
        <source>gpuadvisor {version}

Can my GPU train this model, how long will it take, and what should I change? Estimates of memory per GPU and training time, with every assumption shown.

Python {python} · Qt {qt} · PySide6 {pyside}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="267"/>
        <source>About gpuadvisor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="273"/>
        <source>Open plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="274"/>
        <source>gpuadvisor plans (*{suffix});;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="282"/>
        <source>Save plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="283"/>
        <source>gpuadvisor plans (*{suffix})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="289"/>
        <source>Export page as PNG</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="291"/>
        <source>PNG images (*.png)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="311"/>
        <source>Cannot open plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="318"/>
        <source>Opened {path}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="340"/>
        <source>Cannot save plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="347"/>
        <source>Saved {path}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="357"/>
        <source>No recent plans</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="361"/>
        <source>Clear list</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="376"/>
        <source>Untitled plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="389"/>
        <source>Cannot export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="390"/>
        <source>Could not write {path}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="392"/>
        <source>Wrote {path}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="399"/>
        <source>Summary copied to the clipboard as Markdown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="461"/>
        <source>Could not save settings: {error}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MemoryCurveChart</name>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="111"/>
        <source>micro-batch</source>
        <extracomment>The initial view shows up to this multiple of the GPU&apos;s capacity. At most this many labelled ticks; beyond it every second (fourth...) power is shown. Linear mode: only whole-number ticks (micro-batches are counts; &quot;2.5&quot; is no value).</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="265"/>
        <source>target GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="269"/>
        <source>out of memory above {size} ({gpu})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="287"/>
        <source>memory per GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="288"/>
        <source>your plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="289"/>
        <source>largest that fits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="293"/>
        <source>out of memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="298"/>
        <source>memory per GPU ({unit})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="301"/>
        <source>memory ({unit})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="371"/>
        <source>largest {what} that fits: {value}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="378"/>
        <source>no {what} in this range fits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="448"/>
        <source>{what} {value}: {size}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="455"/>
        <source>{point} — {verdict}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MemoryTerms</name>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="87"/>
        <source>weights</source>
        <extracomment>Okabe–Ito colour-blind-safe palette (plus its usual neutral grey). One colour per memory term (keys are :data:`gpuadvisor.core.memory.TERMS`). Neighbours in the stacking order never share a hue family, so adjacent segments stay distinguishable. Fit categories used by the fit map and the verdict badge. Fill colour per fit category: green / amber / red in their colour-blind-safe forms (the three also differ in lightness, so they survive greyscale printing), grey when no GPU. Text colour that stays readable on each category&apos;s fill (large bold text, ≥ 3:1). The core&apos;s verdict strings (``Estimate.verdict``) mapped to categories. Colour of the plotted quantity in line charts. Bytes per display unit. Memory of GPUs is marketed in &quot;GB&quot; that are really GiB; the user picks which unit the axes use.</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="88"/>
        <source>gradients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="89"/>
        <source>optimizer states</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="90"/>
        <source>activations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="91"/>
        <source>logits / loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="92"/>
        <source>KV cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="93"/>
        <source>overhead</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PlanPage</name>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="184"/>
        <source>Drawing charts…</source>
        <extracomment>Id of the model picker&apos;s entry for a model that is not a preset (config.json, custom). Id of the GPU picker&apos;s &quot;no GPU&quot; entry. Fit map grid: micro-batches (rows) and sequence lengths (columns). Plan fields whose widgets this page owns (error messages for other fields go to the top). A message for the window&apos;s status bar. The charts exist and show the plan (see ``defer_charts``).</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="223"/>
        <source>micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="224"/>
        <source>sequence length</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="229"/>
        <source>Memory per GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="231"/>
        <source>What fits: micro-batch × sequence length</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="232"/>
        <source>Memory vs micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="233"/>
        <source>Memory vs sequence length</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="280"/>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="285"/>
        <source>Type to search presets</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="286"/>
        <source>Type part of a name (e.g. &quot;llama 8b&quot;) and press Enter, or pick from the list</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="290"/>
        <source>Open config.json…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="291"/>
        <source>Use a Hugging Face config.json from disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="292"/>
        <source>Custom…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="293"/>
        <source>Type in architecture numbers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="308"/>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="312"/>
        <source>Task</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="313"/>
        <source>Precision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="314"/>
        <source>Optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="317"/>
        <source>Batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="321"/>
        <source>Sequences per GPU per forward/backward pass</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="325"/>
        <source>Micro-batches per optimizer step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="327"/>
        <source>Tokens per sequence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="331"/>
        <source>Inference: tokens generated per sequence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="336"/>
        <source>Micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="337"/>
        <source>Grad. accumulation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="338"/>
        <source>Sequence length</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="339"/>
        <source>New tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="343"/>
        <source>Memory savers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="352"/>
        <source>Checkpointing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="353"/>
        <source>Attention</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="354"/>
        <source>Quantization</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="355"/>
        <source>LoRA rank</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="356"/>
        <source>LoRA targets</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="357"/>
        <source>KV cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="360"/>
        <source>GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="362"/>
        <source>Type to search GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="368"/>
        <source>Target GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="369"/>
        <source>Number of GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="370"/>
        <source>ZeRO / FSDP</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="371"/>
        <source>CPU offload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="374"/>
        <source>Data set</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="376"/>
        <source>Training tokens over all epochs, e.g. 2T, 300M</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="378"/>
        <source>Samples per epoch, e.g. 52k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="383"/>
        <source>Tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="384"/>
        <source>or samples</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="385"/>
        <source>× epochs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="411"/>
        <source>same as compute (16-bit)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="421"/>
        <source>No GPU (memory only)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="434"/>
        <source>No preset matches &quot;{text}&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="439"/>
        <source>No GPU in the catalog matches &quot;{text}&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="483"/>
        <source>&quot;{text}&quot; is not a count: type a number like 2T, 1.5B, 300M or 52k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="506"/>
        <source>Applied: {lever}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="512"/>
        <source>Open a Hugging Face config.json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="513"/>
        <source>Model config (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="589"/>
        <source>{name} (custom, {count})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="643"/>
        <source>{n} × {seq} tokens per optimizer step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="655"/>
        <source>samples</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="655"/>
        <source>tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="660"/>
        <source>Not given: assuming {amount}. Fill in tokens, or samples × epochs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="663"/>
        <source>Training on {amount} in all.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="668"/>
        <source>Inference: no data set.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="673"/>
        <source>{total} parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="675"/>
        <source>{active} active</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="678"/>
        <source>{n} trainable ({share:.2f}%)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="681"/>
        <source>{layers} layers, hidden {hidden}, context {ctx}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="684"/>
        <source>one sample = {unit}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan_page.py" line="702"/>
        <source>your plan</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SummaryWriter</name>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="21"/>
        <source>micro-batch {mb} × accumulation {ga}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="24"/>
        <source>micro-batch {mb} × accumulation {ga} × sequence {seq}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="26"/>
        <source>{n} GPU(s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="30"/>
        <source>offload: {what}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="33"/>
        <source>checkpointing: {how}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="37"/>
        <source>LoRA r={rank} on {targets}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="41"/>
        <source>base weights {quant}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="54"/>
        <source>**{need}** per GPU (no GPU chosen)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="57"/>
        <source>**{verdict}**: {need} of {have} per GPU ({free} free)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="61"/>
        <source>**Does not fit**: {need} per GPU, {have} available (short by {short})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="64"/>
        <source>Parameters: {total}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="66"/>
        <source>({n} trainable)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="68"/>
        <source>Precision: {precision}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="71"/>
        <source>optimizer: {optimizer}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="77"/>
        <source>Plan: {plan}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="79"/>
        <source>Memory per GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="81"/>
        <source>term</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="81"/>
        <source>size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="89"/>
        <source>total</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="92"/>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="94"/>
        <source>total {time} · decode {rate} tokens/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="98"/>
        <source>total {time} · {rate} tokens/s · {hours} GPU-hours · {flops}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="102"/>
        <source>data: {amount} ({source})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="106"/>
        <source>peak {tflops:g} TFLOPS {dtype} ({source}) × efficiency {eff:.2f} ({eff_source})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="111"/>
        <source>Make it fit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="114"/>
        <source>Warnings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="116"/>
        <source>_Estimated with gpuadvisor._</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TimePanel</name>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="91"/>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="107"/>
        <source>Total time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="108"/>
        <source>GPU-hours</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="109"/>
        <source>Throughput</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="110"/>
        <source>Compute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="116"/>
        <source>Steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="122"/>
        <source>Efficiency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="130"/>
        <source>Share of the GPU&apos;s dense peak that training achieves (model FLOPs utilisation). 0.35–0.50 is typical for well-tuned training.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="135"/>
        <source>Default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="136"/>
        <source>Use the assumed efficiency again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="146"/>
        <source>Assumptions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="171"/>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="212"/>
        <source>samples</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="172"/>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="213"/>
        <source>tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="175"/>
        <source>{rate} generated tokens/s (decode)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="177"/>
        <source>prefill {prefill} · decode bound by {bound}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="180"/>
        <source>{rate} {unit}/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="182"/>
        <source>{steps} × {step} (bound by {bound})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="200"/>
        <source>peak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="201"/>
        <source>{tflops:g} TFLOPS {dtype} on {gpu}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="206"/>
        <source>efficiency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="207"/>
        <source>{eff:.2f} → {tflops:.1f} TFLOPS per GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="214"/>
        <source>data</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="217"/>
        <source>GPU link</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="220"/>
        <source>overlap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="223"/>
        <source>bandwidth</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="226"/>
        <source>timed on</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="228"/>
        <source>CUDA context</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>VerdictBanner</name>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="59"/>
        <source>{need} per GPU · choose a GPU to check the fit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="67"/>
        <source>Does not fit: needs {need} per GPU, {gpu} has {have} (short by {free})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="71"/>
        <source>Fits, but tight: {need} of {have} on {gpu} ({free} free)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="75"/>
        <source>Fits: {need} of {have} on {gpu} ({free} free)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>VramBreakdownChart</name>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="91"/>
        <source>{size} GB cards</source>
        <extracomment>Common card sizes drawn as dashed references. GPU makers&apos; &quot;GB&quot; on memory is binary (a &quot;24 GB&quot; RTX 4090 has 24 GiB), so the lines sit at these many GiB in either unit. Headroom above the tallest thing, as a fraction of it, until the view has a size (then the headroom is computed in pixels to clear the verdict badge). Reference lines closer than this share of the y span to a shown line are hidden (until the view has a size; then a label&apos;s height in pixels decides), so labels never overlap.</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="156"/>
        <source>plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="157"/>
        <source>option {n}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="212"/>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="352"/>
        <source>target GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="228"/>
        <source>memory per GPU ({unit})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="231"/>
        <source>memory ({unit})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="297"/>
        <source>needs {total} per GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="306"/>
        <source>fits — {free} free</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="310"/>
        <source>tight — {free} free</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="314"/>
        <source>does not fit by {over}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="340"/>
        <source>{term}: {size} ({share:.1f}%)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="355"/>
        <source>{gpu}: {size}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>_Texts</name>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="63"/>
        <source>Rig</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="64"/>
        <source>What is in this machine, and what it can do on paper.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="66"/>
        <source>The GPUs detected (or a simulated demo rig): VRAM total and free, driver and CUDA versions, compute capability.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="68"/>
        <source>PCIe generation and width now vs the maximum, NVLink, power limit, temperature, clocks and throttle reasons.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="70"/>
        <source>The matching catalog entry and its theoretical peaks; one click makes a detected GPU the Plan page&apos;s target.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="73"/>
        <source>Meanwhile, pick your GPU from the catalog on the Plan page.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="78"/>
        <source>Probe</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="79"/>
        <source>Measure this machine instead of trusting the datasheet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="81"/>
        <source>Quick or full probes (matmul throughput per precision, memory bandwidth, host-to-device copies) with progress and cancel.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="83"/>
        <source>Measured vs theoretical bars, and a live plot of temperature, clock, power and utilisation.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="85"/>
        <source>History across runs. Probes run in a separate process with your own PyTorch; the app itself never loads it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="88"/>
        <source>Meanwhile, the Plan page&apos;s efficiency setting stands in for a measured throughput.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="94"/>
        <source>Compare</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="95"/>
        <source>Every way to run the plan: your rig, buying a GPU, renting, or the cloud.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="98"/>
        <source>Time vs cost for every option (hover for details, click to select), with the best ones highlighted.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="100"/>
        <source>A table ranked by your goal: cheapest, fastest, or within a budget or deadline; buy-vs-rent break-even.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="102"/>
        <source>Exports: SkyPilot task YAML, accelerate/DeepSpeed config, and a report.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/coming.py" line="105"/>
        <source>Meanwhile, try other GPUs and GPU counts on the Plan page.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
