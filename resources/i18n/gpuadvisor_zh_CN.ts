<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AboutDialog</name>
    <message>
        <location filename="../../gpuadvisor/gui/about.py" line="128"/>
        <location filename="../../gpuadvisor/gui/about.py" line="167"/>
        <source>Can my GPU train this model, how long will it take, and what should I change? Estimates of memory per GPU and training time, with every assumption shown.</source>
        <extracomment>The program&apos;s name (commands, folders) and the name people read.</extracomment>
        <translation>我的 GPU 能训练这个模型吗？需要多长时间？应该改什么？估算每个 GPU 的显存占用和训练时间，并列出每一项假设。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/about.py" line="132"/>
        <location filename="../../gpuadvisor/gui/about.py" line="172"/>
        <source>Catalog prices as of {date}</source>
        <translation>目录价格截至 {date}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/about.py" line="134"/>
        <location filename="../../gpuadvisor/gui/about.py" line="173"/>
        <source>Catalog date unknown</source>
        <translation>目录日期未知</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/about.py" line="135"/>
        <source>gpuadvisor is free software under the MIT licence. It is built on {components}.</source>
        <translation>gpuadvisor 是以 MIT 许可证发布的自由软件。它基于：{components}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/about.py" line="153"/>
        <source>About gpuadvisor</source>
        <translation>关于 gpuadvisor</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/about.py" line="161"/>
        <source>Version {version}</source>
        <translation>版本 {version}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/about.py" line="210"/>
        <source>Component</source>
        <translation>组件</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/about.py" line="210"/>
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/about.py" line="210"/>
        <source>Licence</source>
        <translation>许可证</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/about.py" line="213"/>
        <source>gpuadvisor is free software under the MIT licence. It is built on these components, each under its own licence:</source>
        <translation>gpuadvisor 是以 MIT 许可证发布的自由软件。它基于以下组件，各组件遵循其各自的许可证：</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/about.py" line="216"/>
        <source>Qt, PySide6 and Shiboken6 are used under the GNU Lesser General Public License version 3. They are unmodified, dynamically linked libraries: you may replace them with your own build. Their source code is at {url}.</source>
        <translation>Qt、PySide6 和 Shiboken6 依据 GNU 宽通用公共许可证第 3 版（LGPL-3.0）使用。它们是未经修改、动态链接的库：你可以用自己构建的版本替换它们。其源代码位于 {url}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/about.py" line="220"/>
        <source>torch is not included: probes run in a Python environment of yours that has it.</source>
        <translation>不包含 torch：探测在你自己的、装有 torch 的 Python 环境中运行。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/about.py" line="222"/>
        <source>All licence texts</source>
        <translation>全部许可证文本</translation>
    </message>
</context>
<context>
    <name>AdviceModel</name>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="115"/>
        <source>#</source>
        <extracomment>Starting widths of the table&apos;s columns, in pixels at the desktop font (the last one stretches). Widths in average characters of the font (so that they grow with presentation mode); the option&apos;s name takes what is left, never less than its minimum. Columns left out first when the table is narrow (a laptop, a projector): the name, the fit, the time and the cost (per token: the speed, the cost and the break-even) stay. Then, per token, the time to the first token and the fit. Columns widened to their longest text when the table has room to spare, in turn. Columns of a training plan&apos;s table and of an inference plan&apos;s (per million tokens). A note in brackets at a text&apos;s end: &quot; (community hosts)&quot;, &quot; (spot)&quot;, &quot;（竞价）&quot;.</extracomment>
        <translation>#</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="115"/>
        <source>Option</source>
        <translation>方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="115"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="116"/>
        <source>Fits</source>
        <translation>放得下</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="116"/>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="116"/>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="117"/>
        <source>Cost</source>
        <translation>费用</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="117"/>
        <source>Tokens/s</source>
        <translation>token/秒</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="118"/>
        <source>First token</source>
        <translation>首个 token</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="118"/>
        <source>Per M tokens</source>
        <translation>每百万 token</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="119"/>
        <source>Price</source>
        <translation>价格</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="120"/>
        <source>Seller / cloud</source>
        <translation>卖家 / 云</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="120"/>
        <source>Region</source>
        <translation>地区</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="121"/>
        <source>Price seen</source>
        <translation>报价日期</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="169"/>
        <source>Price seen on {date}</source>
        <translation>价格见于 {date}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="194"/>
        <source>Per million input / output tokens</source>
        <translation>每百万输入 / 输出 token</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="257"/>
        <source>no ({need} of {have})</source>
        <translation>否（需 {need}，有 {have}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="261"/>
        <source>with {levers}</source>
        <translation>需 {levers}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="289"/>
        <source>{mark}{days} days ago</source>
        <translation>{mark}{days} 天前</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="234"/>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="262"/>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="119"/>
        <source>Pays off after</source>
        <translation>回本所需</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="265"/>
        <source>{gpus} ({instances} instances)</source>
        <translation>{gpus}（{instances} 个实例）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="275"/>
        <source>this machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="282"/>
        <source>{date} (your price)</source>
        <translation>{date}（你的价格）</translation>
    </message>
</context>
<context>
    <name>CompareCharts</name>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="53"/>
        <source>your rig</source>
        <extracomment>Colour, symbol and stacking order per option kind (Okabe–Ito colours). Your rig&apos;s black is drawn in the theme&apos;s ``mark`` colour (light on a dark plot). The limits&apos; colour on a light plot (drawn in the theme&apos;s ``reference_color``). A point within this many pixels of the cursor is the one hovered or clicked.</extracomment>
        <translation>你的机器</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="54"/>
        <source>buy new</source>
        <translation>买新卡</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="55"/>
        <source>buy used</source>
        <translation>买二手</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="56"/>
        <source>rent</source>
        <translation>租用</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="57"/>
        <source>cloud</source>
        <translation>云</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="198"/>
        <source>Time against cost of every option</source>
        <extracomment>Durations people think in, in hours: 1, 10, 30 min; 1, 3, 10 h; 1, 3 days; 1, 2 weeks; 1, 3 months; 1 year.</extracomment>
        <translation>各方案的时间与成本</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="345"/>
        <source>hollow: fits with a change to the plan</source>
        <translation>空心：改动计划后放得下</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="359"/>
        <source>best trade-offs (Pareto front)</source>
        <translation>最佳权衡（帕累托前沿）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="372"/>
        <source>Time for the job (log scale)</source>
        <translation>任务用时（对数刻度）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="373"/>
        <source>Cost of the job, {currency} (log)</source>
        <translation>任务费用，{currency}（对数）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="375"/>
        <source>Cost ({currency})</source>
        <translation>费用（{currency}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="389"/>
        <source>{name} ({time}, {cost})</source>
        <translation>{name}（{time}，{cost}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="392"/>
        <source>{n} options, time against cost. Fastest: {fastest}. Cheapest: {cheapest}. {front} on the Pareto front.</source>
        <translation>{n} 个方案的时间与成本。最快：{fastest}。最便宜：{cheapest}。{front} 个位于帕累托前沿。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="461"/>
        <source>{n} GPU(s)</source>
        <translation>{n} 张 GPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="463"/>
        <source>{time} · {cost}</source>
        <translation>{time} · {cost}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="466"/>
        <source>on the Pareto front: nothing is both faster and cheaper</source>
        <translation>位于帕累托前沿：没有既更快又更便宜的方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="469"/>
        <source>over the budget or past the deadline</source>
        <translation>超出预算或截止时间</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/compare_charts.py" line="472"/>
        <source>fits only with a change to the plan (hollow)</source>
        <translation>只有修改规划才放得下（空心）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/break_even.py" line="32"/>
        <source>Break-even: owning against renting</source>
        <translation>回本点：自购与租用</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/break_even.py" line="109"/>
        <source>own: {name}</source>
        <translation>自有：{name}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/break_even.py" line="111"/>
        <source>rent: {name}</source>
        <translation>租用：{name}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/break_even.py" line="115"/>
        <source>Jobs like this one</source>
        <translation>同类任务次数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/break_even.py" line="116"/>
        <source>Total cost ({currency})</source>
        <translation>总费用（{currency}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/break_even.py" line="120"/>
        <source>Renting stays cheaper: it costs less per job than the owned card&apos;s power</source>
        <translation>租用始终更便宜：每次任务的租金低于自有卡的电费</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/break_even.py" line="124"/>
        <source>Owning pays off after {jobs} jobs</source>
        <translation>{jobs} 次任务后买卡更划算</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/break_even.py" line="135"/>
        <source>Owning {own}: {hardware} and {own_per_job} per job; renting {rent}: {rent_per_job} per job. {answer}.</source>
        <translation>自购 {own}：{hardware}，每个任务另加 {own_per_job}；租用 {rent}：每个任务 {rent_per_job}。{answer}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/break_even.py" line="165"/>
        <source>after {jobs} jobs
owning: {own}
renting: {rent}</source>
        <translation>{jobs} 次任务后
自有：{own}
租用：{rent}</translation>
    </message>
</context>
<context>
    <name>ComparePage</name>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="89"/>
        <source>your {cards}</source>
        <extracomment>Words a table cell leaves out of a GPU&apos;s name (the maker and its brand; the model and its variant stay): &quot;NVIDIA GeForce RTX 3060 12GB&quot; is &quot;RTX 3060 12GB&quot; there.</extracomment>
        <translation>你的 {cards}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="94"/>
        <source>{n}x used {gpu}</source>
        <translation>{n} 张二手 {gpu}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="95"/>
        <source>{n}x new {gpu}</source>
        <translation>{n} 张全新 {gpu}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="97"/>
        <source>used {gpu}</source>
        <translation>二手 {gpu}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="98"/>
        <source>new {gpu}</source>
        <translation>全新 {gpu}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="102"/>
        <source>{name} (spot)</source>
        <translation>{name}（竞价）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="110"/>
        <source>{price} per card</source>
        <translation>每张 {price}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="112"/>
        <source>{price}/GPU-h</source>
        <translation>{price}/GPU·时</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/layout.py" line="37"/>
        <source>Compare</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below.</extracomment>
        <translation>对比</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/layout.py" line="41"/>
        <source>Change the plan</source>
        <translation>修改规划</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/layout.py" line="42"/>
        <source>Go to the Plan page: every option here is timed and priced for that plan</source>
        <translation>转到规划页：这里每个方案的时间和费用都按该规划计算</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/layout.py" line="75"/>
        <source>Time and cost</source>
        <translation>时间与成本</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/layout.py" line="105"/>
        <location filename="../../gpuadvisor/gui/pages/compare/layout.py" line="128"/>
        <location filename="../../gpuadvisor/gui/pages/compare/layout.py" line="136"/>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="361"/>
        <source>Options</source>
        <translation>方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/layout.py" line="129"/>
        <source>Selected option</source>
        <translation>所选方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="49"/>
        <location filename="../../gpuadvisor/gui/pages/compare/layout.py" line="120"/>
        <source>What matters to you</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below.</extracomment>
        <translation>你看重什么</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="56"/>
        <source>Show or hide what the ranking uses: goal, budget, deadline, prices</source>
        <translation>显示或隐藏排名依据：目标、预算、截止时间、价格</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="71"/>
        <source>Rank the options cheapest first or fastest first</source>
        <translation>按最便宜或最快对方案排序</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="73"/>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="339"/>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="268"/>
        <source>Cheapest</source>
        <translation>最便宜</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="74"/>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="338"/>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="265"/>
        <source>Fastest</source>
        <translation>最快</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="81"/>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="89"/>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="194"/>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="196"/>
        <source>no limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="82"/>
        <source>Most you want to spend on this job, in your currency (0: no limit)</source>
        <translation>这次任务最多愿意花多少钱，以你的货币计（0：不限）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="88"/>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="132"/>
        <source> h</source>
        <translation> 小时</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="90"/>
        <source>Wall-clock hours the job may take (0: no limit)</source>
        <translation>任务最多可用的实际小时数（0：不限）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="96"/>
        <source>Most cards you would buy (1, 2, 4 or 8 are tried)</source>
        <translation>最多愿意买几块卡（会尝试 1、2、4、8 块）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="103"/>
        <source>Your electricity price per kWh, in your currency: it prices running your rig or a bought card</source>
        <translation>你的电价（每千瓦时，以你的货币计）：用于计算自有机器或买来的卡的电费</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="108"/>
        <source>The currency every price is shown in (at the exchange rate you set)</source>
        <translation>所有价格显示所用的货币（按你设置的汇率）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="116"/>
        <source>Your exchange rate: units of your currency per US dollar (the catalog&apos;s prices are in USD)</source>
        <translation>你的汇率：每 1 美元折合多少你的货币（目录中的价格以美元计）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="124"/>
        <source>Inference: the share of the hours you rent that the GPU spends generating (a rented GPU is paid for while it waits for requests); default {pct}%</source>
        <translation>推理：租用时间中 GPU 真正在生成的比例（租来的 GPU 等待请求时也在计费）；默认 {pct}%</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="134"/>
        <source>Inference: the hours a card serves before you write it off; its price is spread over them (default {hours:,} h: about three years at nine hours a day)</source>
        <translation>推理：一张卡报废前能服务的小时数，卡价摊到这些小时上（默认 {hours:,} 小时：约三年、每天九小时）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="139"/>
        <source>Goal</source>
        <translation>目标</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="140"/>
        <source>Budget</source>
        <translation>预算</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="141"/>
        <source>Deadline</source>
        <translation>截止时间</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="142"/>
        <source>Rentals busy</source>
        <translation>租用利用率</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="144"/>
        <source>Card lifetime</source>
        <translation>显卡寿命</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="145"/>
        <source>Cards to buy, at most</source>
        <translation>最多买几块卡</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="146"/>
        <source>Electricity per kWh</source>
        <translation>每千瓦时电价</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="147"/>
        <source>Currency</source>
        <translation>货币</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="155"/>
        <source>Allow changes to the plan</source>
        <translation>允许修改规划</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="157"/>
        <source>Off: the plan is compared as you set it, and options that fit only with a change (LoRA instead of a full fine-tune, QLoRA, ZeRO-3, CPU offload, ...) are listed apart, each with its change. On: they are ranked with the others.</source>
        <translation>关闭：按你设定的规划对比；只有修改规划（把全参微调改成 LoRA、QLoRA、ZeRO-3、CPU 卸载等）才放得下的方案单独列出，并注明所需的修改。打开：它们与其他方案一起排名。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="198"/>
        <source>changes to the plan allowed</source>
        <translation>允许修改规划</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="200"/>
        <source>the plan as asked</source>
        <translation>按原规划</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="203"/>
        <source>{arrow} What matters to you: {goal}; rentals busy {util}; cards over {hours}; {plan}</source>
        <translation>{arrow} 你看重什么：{goal}；租用利用率 {util}；显卡寿命 {hours}；{plan}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="209"/>
        <source>{arrow} What matters to you: {goal}; budget: {budget}; deadline: {deadline}; {plan}</source>
        <translation>{arrow} 你看重什么：{goal}；预算：{budget}；截止时间：{deadline}；{plan}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/details.py" line="91"/>
        <source>Write the selected option as a SkyPilot task, an accelerate or DeepSpeed config, a launch script, a Megatron-LM launch or a report</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below.</extracomment>
        <translation>将所选方案导出为 SkyPilot 任务、accelerate 或 DeepSpeed 配置、启动脚本、Megatron-LM 启动脚本或报告</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/details.py" line="94"/>
        <source>Export the selected option</source>
        <translation>导出所选方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/details.py" line="99"/>
        <source>SkyPilot task…</source>
        <translation>SkyPilot 任务…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/details.py" line="100"/>
        <source>accelerate config…</source>
        <translation>accelerate 配置…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/details.py" line="101"/>
        <source>DeepSpeed config…</source>
        <translation>DeepSpeed 配置…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/details.py" line="102"/>
        <source>Launch script…</source>
        <translation>启动脚本…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/details.py" line="103"/>
        <source>Megatron-LM launch…</source>
        <translation>Megatron-LM 启动脚本…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/details.py" line="104"/>
        <source>Report…</source>
        <translation>报告…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/details.py" line="105"/>
        <source>A SkyPilot task YAML that rents this option (rent and cloud options)</source>
        <translation>租用此方案的 SkyPilot 任务 YAML（租用和云方案）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/details.py" line="107"/>
        <source>A Hugging Face accelerate config for this plan</source>
        <translation>此规划的 Hugging Face accelerate 配置</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/details.py" line="109"/>
        <source>A DeepSpeed ZeRO config for this plan</source>
        <translation>此规划的 DeepSpeed ZeRO 配置</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/details.py" line="110"/>
        <source>The torchrun line that starts the training</source>
        <translation>启动训练的 torchrun 命令行</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/details.py" line="112"/>
        <source>Megatron-LM&apos;s training script with this estimate&apos;s layout: tensor and pipeline parallelism as priced (full fine-tunes and pre-training)</source>
        <translation>按本估算的并行布局运行 Megatron-LM 训练脚本：张量并行与流水线并行与估价时一致（全参数微调与预训练）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/details.py" line="116"/>
        <source>The plan, the options and these charts as one HTML file (or Markdown: end the name with .md)</source>
        <translation>把规划、各方案和这些图表存成一个 HTML 文件（或 Markdown：文件名以 .md 结尾）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="130"/>
        <source>Show the options of this kind in the table and the chart</source>
        <translation>在表格和图表中显示这一类方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="137"/>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="51"/>
        <source>hosted API</source>
        <translation>托管 API</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="138"/>
        <source>Show the hosted APIs&apos; per-token prices</source>
        <translation>显示托管 API 的按 token 价格</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="146"/>
        <source>GPU maker</source>
        <translation>GPU 厂商</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="148"/>
        <source>Least memory per GPU</source>
        <translation>每块 GPU 的最少显存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="150"/>
        <source>any memory</source>
        <translation>显存不限</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="151"/>
        <source>≥ {gb} GB</source>
        <translation>≥ {gb} GB</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="153"/>
        <source>Seller, marketplace or cloud</source>
        <translation>卖家、租赁平台或云</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="155"/>
        <source>spot and on-demand</source>
        <translation>竞价和按需</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="156"/>
        <source>on-demand only</source>
        <translation>仅按需</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="157"/>
        <source>spot only</source>
        <translation>仅竞价</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="159"/>
        <source>Spot (interruptible) prices are cheaper; the job may be stopped and must resume from checkpoints</source>
        <translation>竞价（可中断）实例更便宜；任务可能被中止，需要从检查点恢复</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="162"/>
        <source>fits only</source>
        <translation>只看放得下的</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="163"/>
        <source>Hide the options the plan does not fit</source>
        <translation>隐藏放不下该规划的方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="101"/>
        <source>Search: 4090, RunPod, us-east…</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below.</extracomment>
        <translation>搜索：4090、RunPod、us-east…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="102"/>
        <source>Search…</source>
        <translation>搜索…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="167"/>
        <source>Keep the rows whose words contain all of these (a card, a seller, a region)</source>
        <translation>只保留包含所有这些词的行（显卡、卖家、地区）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="184"/>
        <source>any maker</source>
        <translation>厂商不限</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/filters.py" line="185"/>
        <source>any seller or cloud</source>
        <translation>卖家或云不限</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/catalogs.py" line="24"/>
        <source>The offers catalog could not be read, so only your rig is compared: {error}</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below.</extracomment>
        <translation>无法读取报价目录，只对比你的机器：{error}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/constraints.py" line="249"/>
        <source>{code} per US dollar</source>
        <translation>每美元折合 {code}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/page.py" line="269"/>
        <source>Electricity price {value} is out of range</source>
        <translation>电价 {value} 超出范围</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/page.py" line="371"/>
        <source>Working out every option…</source>
        <translation>正在计算所有方案…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/page.py" line="380"/>
        <source>Cannot compare this plan: {error}</source>
        <translation>无法对比此规划：{error}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="128"/>
        <source>&lt;b&gt;{model}&lt;/b&gt;, {task}, {precision} · {line}</source>
        <translation>&lt;b&gt;{model}&lt;/b&gt;，{task}，{precision} · {line}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="137"/>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="134"/>
        <source> with {levers}</source>
        <translation>，需 {levers}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="145"/>
        <source>{name} finishes in {time}{levers} for {power} of power</source>
        <translation>{name} 用 {time}完成{levers}，电费 {power}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="149"/>
        <source>{name} ({price}) finishes in {time}{levers}, plus {power} of power</source>
        <translation>{name}（{price}）用 {time}完成{levers}，另加电费 {power}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="153"/>
        <source> on {n} instances</source>
        <translation>，用 {n} 个实例</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="155"/>
        <source>renting {name} costs {cost} and takes {time}{instances}{levers}</source>
        <translation>租用 {name} 花费 {cost}，用时 {time}{instances}{levers}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="163"/>
        <source>{sentence}.</source>
        <translation>{sentence}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="245"/>
        <source>GPU {index} ({name})</source>
        <translation>GPU {index}（{name}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="250"/>
        <source>⚠ Lost from the rig: {gone}. Your rig is compared as it is now: {rig}.</source>
        <translation>⚠ 已从配置中掉线：{gone}。按你现在的配置对比：{rig}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="252"/>
        <source>⚠ Lost from the rig: {gone}. No card of your rig is left to compare.</source>
        <translation>⚠ 已从配置中掉线：{gone}。你的配置中已没有可对比的显卡。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="262"/>
        <source>Buying {own} (selected) against renting {rent}, the cheapest rental</source>
        <translation>购买 {own}（所选）对比租用最便宜的 {rent}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="265"/>
        <source>Renting {rent} (selected) against buying {own}, the card that pays off soonest</source>
        <translation>租用 {rent}（所选）对比购买最快回本的 {own}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="268"/>
        <source>Buying {own} against renting {rent}: the pair that pays off soonest (select a card or a rental to weigh it)</source>
        <translation>购买 {own} 对比租用 {rent}：最快回本的一组（选中一张显卡或一个租用方案即可比较它）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="291"/>
        <source>No options to compare: the offers catalog is empty and no GPU was detected.</source>
        <translation>没有可对比的方案：报价目录为空，也没有检测到 GPU。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="294"/>
        <source>Nothing fits this plan. The closest is {name}: {need} per GPU needed, {have} available; “Make it fit” on the Plan page says what would.</source>
        <translation>这个规划哪里都放不下。最接近的是 {name}：每张 GPU 需要 {need}，只有 {have}；规划页的“如何放得下”会告诉你改什么。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="306"/>
        <source>Nothing shown runs this plan as it is. With a change to the plan: {why}. Tick “Allow changes to the plan” to rank such options with the others.</source>
        <translation>没有方案能按原样运行这个规划。修改规划后：{why}。勾选“允许修改规划”即可把这类方案与其他方案一起排名。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="313"/>
        <source>None of the options shown fits this plan: widen the filters.</source>
        <translation>显示的方案都放不下此规划：请放宽筛选条件。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="318"/>
        <source>the budget of {budget}</source>
        <translation>{budget} 的预算</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="321"/>
        <source>the deadline of {time}</source>
        <translation>{time} 的截止时间</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="324"/>
        <source>Nothing shown meets {limits}. Closest: {why}.</source>
        <translation>没有方案满足{limits}。最接近的：{why}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="326"/>
        <source> and </source>
        <translation>和</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="328"/>
        <source>cheapest</source>
        <translation>最便宜</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="329"/>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="258"/>
        <source>fastest</source>
        <translation>最快</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="330"/>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="259"/>
        <source>Best ({goal}): {why}.</source>
        <translation>最佳（{goal}）：{why}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="340"/>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="270"/>
        <source>{label}: {why}.</source>
        <translation>{label}：{why}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="351"/>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="293"/>
        <source>{shown} of {total} options shown; {fitting} fit the plan as asked</source>
        <translation>显示 {shown} / {total} 个方案；其中 {fitting} 个按原规划放得下</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="354"/>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="296"/>
        <source>, {changed} more only with a change to the plan</source>
        <translation>，另有 {changed} 个只有修改规划才放得下</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="356"/>
        <source>. ★ = best trade-off (Pareto front).</source>
        <translation>。★ = 最佳权衡（帕累托前沿）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="358"/>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="305"/>
        <source>Prices in {code} at {rate} per USD.</source>
        <translation>价格以 {code} 计，汇率 {rate} 每美元。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/details.py" line="138"/>
        <source>Select an option in the chart or the table.</source>
        <translation>请在图表或表格中选择一个方案。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="200"/>
        <source>spot: may be interrupted</source>
        <translation>竞价：可能被中断</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="203"/>
        <source>your price, {date}</source>
        <translation>你的价格，{date}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="205"/>
        <source>price seen {date}</source>
        <translation>报价日期 {date}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="207"/>
        <source>({days} days ago)</source>
        <translation>（{days} 天前）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/answer.py" line="24"/>
        <location filename="../../gpuadvisor/gui/pages/compare/tokens.py" line="109"/>
        <source>Prices as of {date} ({days} days ago, older than {limit}): check the current price before you rent or buy.</source>
        <translation>价格截至 {date}（{days} 天前，已超过 {limit} 天）：租用或购买前请核实当前价格。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="210"/>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="234"/>
        <source>older than {days} days: check it</source>
        <translation>已超过 {days} 天：请核实</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="213"/>
        <source>an estimate</source>
        <translation>估计值</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="40"/>
        <source>Time: {gpus} GPU(s) at {tflops:,.0f} TFLOPS each ({efficiency:.0%} of peak, {source}), limited by {bound}; {gpu_hours:,.1f} GPU-hours</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below.</extracomment>
        <translation>用时：{gpus} 张 GPU，每张 {tflops:,.0f} TFLOPS（峰值的 {efficiency:.0%}，{source}），受限于{bound}；共 {gpu_hours:,.1f} GPU·时</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="44"/>
        <source>Cards: {n} × {price} = {total}</source>
        <translation>显卡：{n} × {price} = {total}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="45"/>
        <source>Power: {tdp:,.0f} W × {load:.0%} load × {gpus} GPU(s) × {hours} = {kwh:,.1f} kWh × {price}/kWh = {total}</source>
        <translation>电费：{tdp:,.0f} W × {load:.0%} 负载 × {gpus} 张 GPU × {hours} = {kwh:,.1f} kWh × {price}/kWh = {total}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="49"/>
        <source>Rent: {hours} × {instances} instance(s) × {price}/h = {total}</source>
        <translation>租金：{hours} × {instances} 个实例 × {price}/小时 = {total}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="124"/>
        <source>&lt;b&gt;{model}&lt;/b&gt;, {task}, {precision}</source>
        <translation>&lt;b&gt;{model}&lt;/b&gt;，{task}，{precision}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="141"/>
        <source>{name} does not fit: {need} per GPU needed, {have} available</source>
        <translation>{name} 放不下：每张 GPU 需要 {need}，只有 {have}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="275"/>
        <source>No card to buy and rental to compare</source>
        <translation>没有可对比的购卡和租用方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="276"/>
        <source>Break-even needs a card to buy and a rental that both fit the plan among the options shown.</source>
        <translation>盈亏平衡需要在显示的方案中同时有放得下此规划的购卡方案和租用方案。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="51"/>
        <source>Renting {rent} costs no more per job than the power for {own}: buying never pays off on price alone.</source>
        <translation>租用 {rent} 每次任务的花费不高于 {own} 的电费：单看价格，买卡永远不划算。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="55"/>
        <source>{own} ({price}) beats renting {rent} after {jobs} such jobs ({hours} of training on it).</source>
        <translation>{own}（{price}）在 {jobs} 次同类任务后比租用 {rent} 更划算（在它上面训练 {hours}）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="59"/>
        <source>Cards ÷ (rent − power per job): {price} ÷ ({rent} − {power}).</source>
        <translation>显卡价 ÷（每次租金 − 每次电费）：{price} ÷（{rent} − {power}）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/exports.py" line="34"/>
        <source>SkyPilot task (*.yaml)</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below.</extracomment>
        <translation>SkyPilot 任务 (*.yaml)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/exports.py" line="35"/>
        <source>accelerate config (*.yaml)</source>
        <translation>accelerate 配置 (*.yaml)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/exports.py" line="36"/>
        <source>DeepSpeed config (*.json)</source>
        <translation>DeepSpeed 配置 (*.json)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/exports.py" line="37"/>
        <location filename="../../gpuadvisor/gui/pages/compare/exports.py" line="38"/>
        <source>Shell script (*.sh)</source>
        <translation>Shell 脚本 (*.sh)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/exports.py" line="39"/>
        <source>HTML report (*.html);;Markdown report (*.md)</source>
        <translation>HTML 报告 (*.html);;Markdown 报告 (*.md)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/exports.py" line="41"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/exports.py" line="66"/>
        <source>{name} does not fit this plan: pick an option that fits</source>
        <translation>{name} 放不下此规划：请选一个放得下的方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/exports.py" line="81"/>
        <source>A Megatron-LM launch trains; this plan serves a model</source>
        <translation>Megatron-LM 启动脚本用于训练；此计划是模型推理服务</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/page.py" line="522"/>
        <source>Time against cost of every option</source>
        <translation>各方案的用时与费用</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="259"/>
        <location filename="../../gpuadvisor/gui/pages/compare/layout.py" line="78"/>
        <location filename="../../gpuadvisor/gui/pages/compare/page.py" line="523"/>
        <source>Owning against renting</source>
        <translation>买卡与租用对比</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/page.py" line="536"/>
        <source>Select an option first.</source>
        <translation>请先选择一个方案。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/page.py" line="547"/>
        <source>Cannot export {kind}: {error}</source>
        <translation>无法导出 {kind}：{error}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/page.py" line="551"/>
        <source>Cannot write {path}: {error}</source>
        <translation>无法写入 {path}：{error}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/page.py" line="556"/>
        <source>Wrote {path}</source>
        <translation>已写入 {path}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="50"/>
        <source>API</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below.</extracomment>
        <translation>API</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="74"/>
        <source>{n} tokens</source>
        <translation>{n} 个 token</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="84"/>
        <source>never</source>
        <translation>永不</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="86"/>
        <source>from the first token</source>
        <translation>从第一个 token 起</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="95"/>
        <source>Owning beats paying per token for the cheapest API (or rental) after this many generated tokens.</source>
        <translation>生成这么多 token 之后，自购比按 token 付给最便宜的 API（或租用）更划算。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="98"/>
        <source>⚠: that is past the card lifetime you set.</source>
        <translation>⚠：这超过了你设定的显卡寿命。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="113"/>
        <source>{date} (your price)</source>
        <translation>{date}（你的价格）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="118"/>
        <source>{mark}{days} days ago</source>
        <translation>{mark}{days} 天前</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="126"/>
        <source>{name}: {price} per million generated tokens ({inp} per million in, {out} per million out)</source>
        <translation>{name}：每百万生成 token {price}（输入每百万 {inp}，输出每百万 {out}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="136"/>
        <source>{name}: {price} per million generated tokens, {speed} tokens/s, first token after {ttft}{levers}</source>
        <translation>{name}：每百万生成 token {price}，{speed} token/秒，首个 token 用时 {ttft}{levers}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="148"/>
        <source>Per generated token with its share of the prompt ({prompt}:{new}): {out} + {inp} × {prompt} ÷ {new} = {price} per million</source>
        <translation>每个生成 token 连同其分摊的提示（{prompt}:{new}）：{out} + {inp} × {prompt} ÷ {new} = 每百万 {price}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="154"/>
        <source>Blended, input and output tokens together: {price} per million</source>
        <translation>输入与输出 token 合计：每百万 {price}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="156"/>
        <source>Its speed is the provider&apos;s: not estimated here.</source>
        <translation>其速度取决于服务商：这里不做估算。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="169"/>
        <source>Speed: {speed} tokens/s ({per_hour} an hour), the first token after {ttft} (prefilling {prompt} prompt tokens × {batch})</source>
        <translation>速度：{speed} token/秒（每小时 {per_hour} 个），首个 token 用时 {ttft}（预填充 {prompt} 个提示 token × {batch}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="175"/>
        <source>{price}/h ÷ ({per_hour} tokens × {util:.0%} busy) = {result} per million tokens</source>
        <translation>{price}/小时 ÷（{per_hour} 个 token × {util:.0%} 利用率）= 每百万 token {result}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="182"/>
        <source>Power: {tdp:,.0f} W × {load:.0%} × {gpus} GPU(s) × {kwh}/kWh = {power}/h</source>
        <translation>电费：{tdp:,.0f} W × {load:.0%} × {gpus} 张 GPU × {kwh}/kWh = {power}/小时</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="196"/>
        <source>Cards: {price} ÷ {hours:,.0f} h = {per_hour}/h</source>
        <translation>显卡：{price} ÷ {hours:,.0f} 小时 = {per_hour}/小时</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="201"/>
        <source>Cards: no price in the offers catalog for them, so power alone</source>
        <translation>显卡：报价目录里没有它们的价格，只计电费</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="203"/>
        <source>{hourly}/h ÷ {per_hour} tokens = {result} per million tokens</source>
        <translation>{hourly}/小时 ÷ {per_hour} 个 token = 每百万 token {result}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="298"/>
        <source>; {apis} hosted APIs</source>
        <translation>；{apis} 个托管 API</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="162"/>
        <source>Speed: {speed} tokens/s ({per_hour} an hour) serving {users} users at once, as many as stay at reading speed or more (a server&apos;s load, not the plan&apos;s {asked} request(s)); the first token after {ttft} at that load</source>
        <translation>速度：{speed} token/秒（每小时 {per_hour} 个），同时服务 {users} 位用户——在每人不低于阅读速度的前提下尽可能多（按服务器负载计，而非方案中的 {asked} 个请求）；在此负载下首 token 延迟 {ttft}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="106"/>
        <source>{inp} / {out} per M</source>
        <translation>{inp} / {out}（每百万）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="189"/>
        <source>Cards: yours already, not counted; wearing them out would add {price} ÷ {hours:,.0f} h = {per_hour}/h ({wear} per million tokens with the power)</source>
        <translation>显卡：已归你所有，不计入；若计损耗，另加 {price} ÷ {hours:,.0f} 小时 = {per_hour}/小时（连同电费为每百万 token {wear}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="219"/>
        <source>Their wear is priced as the same cards bought: the catalog&apos;s {prices}</source>
        <translation>损耗按买同款显卡的价格计：目录中的{prices}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="222"/>
        <source>{seller} price of {date}</source>
        <translation>{seller} {date} 的价格</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="226"/>
        <source>The catalog has no price for: {cards}</source>
        <translation>目录中没有这些显卡的价格：{cards}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="253"/>
        <source>None of the options shown runs this plan: widen the filters, or “Make it fit” on the Plan page.</source>
        <translation>显示的方案都跑不了这个规划：放宽筛选，或看规划页的“如何放得下”。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="257"/>
        <source>cheapest per token</source>
        <translation>每 token 最便宜</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="274"/>
        <source>Yours: {why}.</source>
        <translation>你的：{why}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="281"/>
        <source>No API in the catalog lists {model}.</source>
        <translation>目录里没有 API 提供 {model}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="299"/>
        <source>. Costs per million generated tokens, each with its share of the prompt ({prompt}:{new}); rentals busy {util:.0%} of the time, cards over {hours:,.0f} h. ★ = best trade-off (Pareto front).</source>
        <translation>。费用按每百万生成 token 计，每个 token 含其分摊的提示（{prompt}:{new}）；租用利用率 {util:.0%}，显卡寿命 {hours:,.0f} 小时。★ = 最佳权衡（帕累托前沿）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="315"/>
        <source>Owning against paying per token</source>
        <translation>自购与按 token 付费对比</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="318"/>
        <source>{own} (selected) against {other}, the cheapest per token</source>
        <translation>{own}（已选）对比每 token 最便宜的 {other}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="321"/>
        <source>{other} (selected) against buying {own}, the card that pays off soonest</source>
        <translation>{other}（已选）对比购买最快回本的显卡 {own}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="324"/>
        <source>Buying {own} against {other}</source>
        <translation>购买 {own} 对比 {other}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="333"/>
        <source>{other} costs {price} per million tokens, no more than the power for {own} ({power}): owning never pays off on price alone.</source>
        <translation>{other} 每百万 token {price}，不高于 {own} 的电费（{power}）：只看价格，自购永远不回本。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="339"/>
        <source>{own} is yours already and its power ({power} per million tokens) costs less than {other} ({price}): cheaper from the first token.</source>
        <translation>{own} 已经是你的，它的电费（每百万 token {power}）低于 {other}（{price}）：从第一个 token 起就更便宜。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="345"/>
        <source>After {tokens}, {own} ({price}) beats {other} ({hours} of generating on it).</source>
        <translation>生成 {tokens} 后，{own}（{price}）比 {other} 更划算（在它上面生成 {hours}）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="350"/>
        <source>That is longer than the {hours:,.0f} h lifetime you set.</source>
        <translation>这超过了你设定的 {hours:,.0f} 小时寿命。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="352"/>
        <source>Cards ÷ (price per token − power per token): {price} ÷ ({other} − {power}) per million.</source>
        <translation>显卡 ÷（每 token 价格 − 每 token 电费）：{price} ÷（{other} − {power}）每百万。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="361"/>
        <source>No card and per-token option to compare</source>
        <translation>没有可比较的显卡和按 token 付费方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="362"/>
        <source>Break-even needs a card (yours or to buy) and an API or rental among the options shown.</source>
        <translation>回本计算需要显示的方案中有一张显卡（自有或待购）和一个 API 或租用方案。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/token_charts.py" line="71"/>
        <source>Time for a million generated tokens (log scale)</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below.</extracomment>
        <translation>生成一百万 token 的时间（对数刻度）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/token_charts.py" line="72"/>
        <source>Cost per million tokens, {currency} (log)</source>
        <translation>每百万 token 费用，{currency}（对数）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/token_charts.py" line="74"/>
        <source>Per M tokens ({currency})</source>
        <translation>每百万 token（{currency}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/token_charts.py" line="87"/>
        <source>cheapest API: {price}</source>
        <translation>最便宜的 API：{price}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/token_charts.py" line="108"/>
        <source>cheapest API: {name}, {price}</source>
        <translation>最便宜的 API：{name}，{price}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/token_charts.py" line="151"/>
        <source>(time and cost for a million tokens)</source>
        <translation>（一百万 token 的时间和费用）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/token_charts.py" line="174"/>
        <source>Million tokens generated</source>
        <translation>已生成 token 数（百万）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/token_charts.py" line="175"/>
        <source>Total cost ({currency})</source>
        <translation>总费用（{currency}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/token_charts.py" line="180"/>
        <source>own: {name}</source>
        <translation>自有：{name}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/token_charts.py" line="182"/>
        <source>per token: {name}</source>
        <translation>按 token：{name}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/token_charts.py" line="185"/>
        <source>Paying per token stays cheaper: it costs less per token than the owned card&apos;s power</source>
        <translation>按 token 付费一直更便宜：每 token 的花费低于自有显卡的电费</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/token_charts.py" line="188"/>
        <source>Your card is cheaper from the first token</source>
        <translation>你的显卡从第一个 token 起就更便宜</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/token_charts.py" line="190"/>
        <source>Owning pays off after {n} million tokens</source>
        <translation>生成 {n} 百万 token 后自购回本</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/token_charts.py" line="202"/>
        <source>after {n} million tokens
owning: {own}
paying per token: {other}</source>
        <translation>{n} 百万 token 后
自购：{own}
按 token 付费：{other}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/compare/table.py" line="362"/>
        <source>Every option: click a row to see its details and the break-even; click a heading to sort</source>
        <translation>所有方案：点击一行查看详情和回本点；点击表头排序</translation>
    </message>
</context>
<context>
    <name>CustomModelDialog</name>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="49"/>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="115"/>
        <source>Custom model</source>
        <extracomment>(ModelSpec field, minimum, maximum) of the number inputs, in form order.</extracomment>
        <translation>自定义模型</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="52"/>
        <source>A decoder-only transformer (LLaMA/GPT style) described by its architecture numbers. The parameter count is derived from them.</source>
        <translation>用架构参数描述的仅解码器 Transformer（LLaMA/GPT 风格），参数量由这些参数推算。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="59"/>
        <source>My model</source>
        <translation>我的模型</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="60"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="62"/>
        <source>Layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="63"/>
        <source>Hidden size</source>
        <translation>隐藏层维度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="64"/>
        <source>Attention heads</source>
        <translation>注意力头数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="65"/>
        <source>Key/value heads (GQA)</source>
        <translation>KV 头数（GQA）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="66"/>
        <source>MLP (FFN) size</source>
        <translation>MLP（FFN）维度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="67"/>
        <source>Vocabulary</source>
        <translation>词表大小</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="68"/>
        <source>Context length</source>
        <translation>上下文长度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="79"/>
        <source>Gated MLP (SwiGLU, three matrices)</source>
        <translation>门控 MLP（SwiGLU，三个矩阵）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="80"/>
        <source>Tied input/output embeddings</source>
        <translation>输入/输出嵌入共享权重</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="105"/>
        <source>{name} (custom)</source>
        <translation>{name}（自定义）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="124"/>
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/custom_model.py" line="137"/>
        <source>{count} parameters</source>
        <translation>参数量 {count}</translation>
    </message>
</context>
<context>
    <name>DemoRigs</name>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="72"/>
        <source>one RTX 4090</source>
        <extracomment>The demo rigs (``--simulate`` scenarios) by name.</extracomment>
        <translation>一张 RTX 4090</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="73"/>
        <source>an RTX 3090 and an RTX 3060 12 GB: two cards, not 36 GB</source>
        <translation>一张 RTX 3090 加一张 RTX 3060 12 GB：是两张卡，不是 36 GB</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="75"/>
        <source>an RTX 3090 whose power and utilization read n/a</source>
        <translation>一张功耗和利用率读不出来的 RTX 3090</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="77"/>
        <source>two RTX 3090s; the second falls off the bus on the 2nd refresh</source>
        <translation>两张 RTX 3090；第二次刷新时第二张卡从总线上掉线</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="79"/>
        <source>a machine without a GPU</source>
        <translation>一台没有 GPU 的机器</translation>
    </message>
</context>
<context>
    <name>FirstRun</name>
    <message>
        <location filename="../../gpuadvisor/gui/first_run.py" line="52"/>
        <source>Dismiss</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below. The demo rig offered: a mixed RTX 3090 + 3060 rig (multi-GPU plans, two card sizes).</extracomment>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/first_run.py" line="54"/>
        <source>Hide these hints (Help → Welcome shows them again)</source>
        <translation>隐藏这些提示（帮助 → 欢迎 可再次显示）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/first_run.py" line="56"/>
        <source>Dismiss the hints</source>
        <translation>关闭提示</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/first_run.py" line="59"/>
        <source>First steps</source>
        <translation>入门</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/first_run.py" line="71"/>
        <source>No GPU was found in this machine. The estimates still work for any GPU in the catalog; to see the Rig, Probe and Compare pages with cards, use a demo rig (you can switch back to this machine on the Rig page).</source>
        <translation>本机没有找到 GPU。估算对目录中的任何 GPU 都照常可用；想在本机、实测和对比页面上看到显卡，请使用演示配置（可在本机页面切换回这台机器）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/first_run.py" line="75"/>
        <source>Use a demo rig</source>
        <translation>使用演示配置</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/first_run.py" line="76"/>
        <source>Show a simulated RTX 3090 + RTX 3060 rig on every page</source>
        <translation>在各页面显示一台模拟的 RTX 3090 + RTX 3060 机器</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/first_run.py" line="81"/>
        <source>Found {count} GPU(s): {names}. Plans now target it. Measure it on the Probe page, so that times use what this card really achieves rather than its spec sheet.</source>
        <translation>找到 {count} 块 GPU：{names}。方案已以它为目标。请在实测页面测一测，这样时间估算用的是这块卡的实际表现，而不是规格表上的数字。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/first_run.py" line="85"/>
        <source>Open the Probe page</source>
        <translation>打开实测页面</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/first_run.py" line="86"/>
        <source>Go to the Probe page to measure this GPU (about 15 to 30 s)</source>
        <translation>转到实测页面测量这块 GPU（约 15 到 30 秒）</translation>
    </message>
</context>
<context>
    <name>FitCategories</name>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="102"/>
        <source>fits</source>
        <translation>放得下</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="103"/>
        <source>tight</source>
        <translation>偏紧</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="104"/>
        <source>does not fit</source>
        <translation>放不下</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="105"/>
        <source>no GPU chosen</source>
        <translation>未选 GPU</translation>
    </message>
</context>
<context>
    <name>FitMapChart</name>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="168"/>
        <source>Fit map</source>
        <extracomment>The smallest font (points) a cell&apos;s value is written in before it is left out. The same on a projector (its axes at 16 pt): smaller values are left out. How far inside its cell the plan&apos;s outline is drawn (a share of the cell). RGBA per category, indexed by the category number (see :mod:`.style`). Text colour on each category&apos;s fill.</extracomment>
        <translation>容纳图</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="362"/>
        <source>prompt length (tokens)</source>
        <translation>提示长度（token）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="363"/>
        <source>requests at once</source>
        <translation>同时处理的请求数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="364"/>
        <source>requests</source>
        <translation>请求数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="369"/>
        <source>sequence length (tokens)</source>
        <translation>序列长度（token）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="370"/>
        <source>micro-batch (sequences)</source>
        <translation>微批次（序列数）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="371"/>
        <source>micro-batch</source>
        <translation>微批次</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="383"/>
        <source>tight: requests wait</source>
        <translation>偏紧：请求需排队</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="385"/>
        <source>tight (over {pct:.0f}%)</source>
        <translation>偏紧（超过 {pct:.0f}%）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="394"/>
        <source>your plan</source>
        <translation>当前方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="407"/>
        <source>Fit map, micro-batch {mb0} to {mb1} by sequence length {s0} to {s1}:</source>
        <translation>容纳图，微批次 {mb0} 到 {mb1}，序列长度 {s0} 到 {s1}：</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="413"/>
        <source>no GPU chosen.</source>
        <translation>未选择 GPU。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="415"/>
        <source>{fits} of {cells} fit, {tight} tight, {over} do not fit.</source>
        <translation>{cells} 格中 {fits} 格放得下，{tight} 格偏紧，{over} 格放不下。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="422"/>
        <source>Your plan: micro-batch {mb}, sequence {seq}, {size}.</source>
        <translation>当前方案：微批次 {mb}，序列 {seq}，{size}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="554"/>
        <source>micro-batch {mb}, seq {seq}: {size}</source>
        <translation>微批次 {mb}，序列 {seq}：{size}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/fit_map.py" line="563"/>
        <source>{cell} — {verdict}</source>
        <translation>{cell} — {verdict}</translation>
    </message>
</context>
<context>
    <name>GpuTile</name>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="188"/>
        <source>integrated</source>
        <translation>集成显卡</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="190"/>
        <source>MIG mode: used through its slices</source>
        <translation>MIG 模式：通过其切片使用</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="192"/>
        <source>GPU {index} · MIG slice {slot}: {name}</source>
        <translation>GPU {index} · MIG 切片 {slot}：{name}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="195"/>
        <source>GPU {index}: {name}</source>
        <translation>GPU {index}：{name}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/tiles.py" line="123"/>
        <source>LOST</source>
        <extracomment>Tallest live chart: on the desktop, and on a projector (its fonts are larger). The tallest a live chart grows to fill a page with room to spare (a 1080p screen). The live chart&apos;s shortest height: its plot, axis and one legend line still readable. The same on a projector: its 16 pt ticks, axis title and (at 1280 px) two legend lines left a plot of a few pixels at 120 px; where the page is shorter it scrolls. A projector&apos;s shortest plot (inside the axes and the legend): the 50 and 100 % labels at 16 pt, both whole. At 1280 x 720 a 200-pixel chart kept 74 pixels of plot under its two legend lines, with only &quot;50&quot; on its axis.</extracomment>
        <translation>已掉卡</translation>
    </message>
</context>
<context>
    <name>HealthWarnings</name>
    <message>
        <location filename="../../gpuadvisor/hardware/detect.py" line="56"/>
        <source>The GPU stopped answering (NVML: GPU is lost) — it fell off the bus. Check power cables and riser, reseat the card and reboot; the kernel log shows an Xid 79.</source>
        <extracomment>VRAM held by processes we cannot see that is worth a warning: the larger of these.</extracomment>
        <translation>GPU 已无响应（NVML 报告 GPU 丢失）——显卡已从总线上掉线。请检查供电线和转接卡，重新插好显卡后重启；内核日志中会有 Xid 79。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/hardware/detect.py" line="62"/>
        <source>Integrated GPU: it shares system memory and is not counted as a training GPU.</source>
        <translation>集成显卡：与系统共享内存，不计为训练用 GPU。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/hardware/detect.py" line="67"/>
        <source>PCIe link runs at x{now} but the card supports x{most} (an x{now} slot, a riser or a shared lane budget): loading data and multi-GPU traffic are slower. Move the card to a full-width slot.</source>
        <translation>PCIe 链路运行在 x{now}，而显卡支持 x{most}（x{now} 插槽、转接卡或通道被共享）：数据加载和多卡通信会变慢。请把显卡换到全宽插槽。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/hardware/detect.py" line="78"/>
        <source>Throttling now because it is too hot ({temp}; slowdown at {limit}): {reasons}. Improve airflow or clean the cooler; clocks drop until it cools.</source>
        <translation>温度过高，正在降频（{temp}；降频阈值 {limit}）：{reasons}。请改善风道或清理散热器；冷却前频率会保持偏低。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/hardware/detect.py" line="87"/>
        <source>Clocks are held down by power now (drawing {draw} of {cap}): {reasons}. Expected under full load at the limit; a low limit or weak PSU makes it worse.</source>
        <translation>频率正受功耗限制（当前 {draw}，上限 {cap}）：{reasons}。满载触及上限时属正常；功耗上限偏低或电源不足会更严重。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/hardware/detect.py" line="94"/>
        <source>Power limit is {limit} W, below the card&apos;s default {default} W: expect lower clocks under load (raise it with nvidia-smi -pl, or accept the slower, cooler card).</source>
        <translation>功耗上限为 {limit} W，低于默认的 {default} W：满载时频率会偏低（可用 nvidia-smi -pl 调高，或接受更慢但更凉的显卡）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/hardware/detect.py" line="100"/>
        <source>{count} uncorrected ECC memory error(s) since the driver loaded: results on this card may be wrong. Reset the GPU; if errors return, have it checked.</source>
        <translation>驱动加载以来出现 {count} 个不可纠正的 ECC 显存错误：这张卡的计算结果可能有误。请重置 GPU；若错误再次出现，请送修检查。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/hardware/detect.py" line="106"/>
        <source>ECC is on, and this card keeps the check bits in its own GDDR memory: they take 1/16 of the memory and about {loss} of the bandwidth of a streaming read (more for scattered access), so decoding runs about that much slower. If you do not need ECC, turn it off (sudo nvidia-smi -e 0, then reboot).</source>
        <translation>ECC 已开启，而这张卡把校验位存放在它自己的 GDDR 显存中：校验位占用 1/16 的显存，以及连续读取时约 {loss} 的带宽（分散访问时更多），所以解码会慢大约这么多。如果不需要 ECC，可以关闭它（sudo nvidia-smi -e 0，然后重启）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/hardware/detect.py" line="120"/>
        <source>{count} other process(es) hold {held} of VRAM: {names}. Free for training: {free} of {total}.</source>
        <translation>另有 {count} 个进程占用 {held} 显存：{names}。可用于训练：{free}（共 {total}）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/hardware/detect.py" line="126"/>
        <source>{used} of VRAM is already in use by processes not visible here (another container or user, or the desktop): free for training is {free} of {total}.</source>
        <translation>已有 {used} 显存被此处看不到的进程占用（其他容器或用户，或桌面）：可用于训练的是 {free}（共 {total}）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/hardware/detect.py" line="132"/>
        <source>MIG mode is on: the card is split into instances and a job sees only its instance&apos;s memory and SMs. Disable MIG (nvidia-smi -mig 0) to train on the whole card.</source>
        <translation>MIG 模式已开启：显卡被划分为多个实例，任务只能看到所在实例的显存和 SM。关闭 MIG（nvidia-smi -mig 0）才能用整张卡训练。</translation>
    </message>
</context>
<context>
    <name>HelpWindow</name>
    <message>
        <location filename="../../gpuadvisor/gui/help_window.py" line="105"/>
        <source>gpuadvisor Help</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below. Chinese and Japanese characters, their punctuation and full-width forms. A line break between two such characters inside a paragraph (a list item&apos;s next line is indented: the indent goes too). Between Chinese and a Latin word the space stays.</extracomment>
        <translation>gpuadvisor 帮助</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_window.py" line="114"/>
        <location filename="../../gpuadvisor/gui/help_window.py" line="117"/>
        <source>Find in the help</source>
        <translation>在帮助中查找</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_window.py" line="115"/>
        <source>Words to find; Enter finds the next place, Shift+Enter the one before</source>
        <translation>要查找的文字；Enter 查找下一处，Shift+Enter 查找上一处</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_window.py" line="125"/>
        <source>Sections of the help</source>
        <translation>帮助的章节</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_window.py" line="126"/>
        <source>Click a section to go there</source>
        <translation>点击章节即可跳转</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_window.py" line="129"/>
        <source>Help text</source>
        <translation>帮助正文</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_window.py" line="147"/>
        <source>The help pages are not installed.</source>
        <translation>未安装帮助页面。</translation>
    </message>
</context>
<context>
    <name>Hints</name>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="51"/>
        <source>The NVIDIA NVML bindings are not installed: pip install nvidia-ml-py (not the deprecated &apos;pynvml&apos; package).</source>
        <extracomment>The hardware package&apos;s hints when NVML cannot start (gpuadvisor.hardware.nvml).</extracomment>
        <translation>未安装 NVIDIA NVML 绑定：请 pip install nvidia-ml-py（不要用已弃用的 &apos;pynvml&apos; 包）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="53"/>
        <source>The NVIDIA driver was updated but the old kernel module is still loaded (NVML/driver version mismatch): reboot.</source>
        <translation>NVIDIA 驱动已更新，但仍加载着旧的内核模块（NVML 与驱动版本不一致）：请重启。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="55"/>
        <source>NVML was refused access to the GPU: check permissions on /dev/nvidia* (your user may need to be in the &apos;video&apos; group).</source>
        <translation>NVML 无权访问 GPU：请检查 /dev/nvidia* 的权限（你的用户可能需要加入 &apos;video&apos; 组）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="57"/>
        <source>No NVIDIA driver is visible in this container: start it with GPU access (docker run --gpus all, with the NVIDIA Container Toolkit installed on the host).</source>
        <translation>这个容器里看不到 NVIDIA 驱动：请以 GPU 访问权限启动容器（docker run --gpus all，并在主机上安装 NVIDIA Container Toolkit）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="60"/>
        <source>The NVIDIA driver is installed but not loaded: reboot, or run &apos;sudo modprobe nvidia&apos; (Secure Boot can block unsigned modules); nvidia-smi should then list the GPU.</source>
        <translation>NVIDIA 驱动已安装但未加载：请重启，或运行 &apos;sudo modprobe nvidia&apos;（安全启动可能阻止未签名的模块）；之后 nvidia-smi 应能列出 GPU。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="63"/>
        <source>An NVIDIA GPU is present but its driver is not installed (libnvidia-ml not found): install the NVIDIA driver, then check with nvidia-smi.</source>
        <translation>检测到 NVIDIA GPU，但没有安装驱动（找不到 libnvidia-ml）：请安装 NVIDIA 驱动，再用 nvidia-smi 检查。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="66"/>
        <source>No NVIDIA driver found (libnvidia-ml missing). If this machine has an NVIDIA GPU, install its driver and check with nvidia-smi.</source>
        <translation>未找到 NVIDIA 驱动（缺少 libnvidia-ml）。如果这台机器有 NVIDIA GPU，请安装驱动并用 nvidia-smi 检查。</translation>
    </message>
</context>
<context>
    <name>HistoryPanel</name>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/history_panel.py" line="53"/>
        <source>History</source>
        <extracomment>The figure names and probe names for people, in the app&apos;s language.</extracomment>
        <translation>历史</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/history_panel.py" line="60"/>
        <source>Device:</source>
        <translation>设备：</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/history_panel.py" line="66"/>
        <source>Figure:</source>
        <translation>指标：</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/history_panel.py" line="72"/>
        <source>Select two runs to compare them.</source>
        <translation>选中两次运行即可对比。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/history_panel.py" line="83"/>
        <source>No runs recorded for this device yet. Press Quick: each run&apos;s results are kept here, per device, to compare over time.</source>
        <translation>此设备还没有记录。点击“快速”：每次运行的结果都按设备保存在这里，便于随时间对比。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/history_panel.py" line="102"/>
        <source>Figure</source>
        <translation>指标</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/history_panel.py" line="102"/>
        <source>Older run</source>
        <translation>较早的运行</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/history_panel.py" line="102"/>
        <source>Newer run</source>
        <translation>较新的运行</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/history_panel.py" line="102"/>
        <source>Change</source>
        <translation>变化</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/history_panel.py" line="145"/>
        <source>The probe history could not be read: {error}</source>
        <translation>无法读取实测历史：{error}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/history_panel.py" line="159"/>
        <source>No runs recorded yet</source>
        <translation>尚无记录</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/history_panel.py" line="229"/>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/history_panel.py" line="229"/>
        <source>Probes</source>
        <translation>测试项</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/history_panel.py" line="230"/>
        <source>Value ({unit})</source>
        <translation>数值（{unit}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/history_panel.py" line="230"/>
        <source>Value</source>
        <translation>数值</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/history_panel.py" line="231"/>
        <source>PyTorch</source>
        <translation>PyTorch</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/history_panel.py" line="264"/>
        <source>{older} → {newer}</source>
        <translation>{older} → {newer}</translation>
    </message>
</context>
<context>
    <name>HostRam</name>
    <message>
        <location filename="../../gpuadvisor/hardware/host_ram.py" line="26"/>
        <source>The plan needs {needed} of host RAM; {available} of {total} is available: it fits.</source>
        <translation>本计划需要 {needed} 主机内存；总计 {total}，可用 {available}：放得下。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/hardware/host_ram.py" line="29"/>
        <source>The plan needs {needed} of host RAM; {available} of {total} is available: it fits, but only just; close other programs first.</source>
        <translation>本计划需要 {needed} 主机内存；总计 {total}，可用 {available}：放得下，但很勉强——请先关闭其他程序。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/hardware/host_ram.py" line="32"/>
        <source>The plan needs {needed} of host RAM but only {available} of {total} is available: free {short} (close programs), offload less, or spread the job over more machines.</source>
        <translation>本计划需要 {needed} 主机内存，但总计 {total} 中只有 {available} 可用：请释放 {short}（关闭程序）、减少卸载，或把任务分到更多机器上。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/hardware/host_ram.py" line="36"/>
        <source>The plan needs {needed} of host RAM, more than this machine&apos;s {total}: offload less or spread the job over more machines (each holds its own GPUs&apos; share); swap is far too slow to count.</source>
        <translation>本计划需要 {needed} 主机内存，超过本机的 {total}：请减少卸载，或把任务分到更多机器上（每台只保存自己 GPU 的那一份）；交换空间太慢，不算在内。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/hardware/host_ram.py" line="40"/>
        <source>The plan needs {needed} of host RAM; this machine&apos;s available RAM could not be read.</source>
        <translation>本计划需要 {needed} 主机内存；无法读取本机的可用内存。</translation>
    </message>
</context>
<context>
    <name>InputHelp</name>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="17"/>
        <source>model</source>
        <extracomment>Short names of what a change touched (Edit → Undo &quot;micro-batch&quot;).</extracomment>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="18"/>
        <source>task</source>
        <translation>任务</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="19"/>
        <source>precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="20"/>
        <source>optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="21"/>
        <source>micro-batch</source>
        <translation>微批次</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="22"/>
        <source>gradient accumulation</source>
        <translation>梯度累积</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="23"/>
        <source>sequence length</source>
        <translation>序列长度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="24"/>
        <source>new tokens</source>
        <translation>生成 token 数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="25"/>
        <source>checkpointing</source>
        <translation>梯度检查点</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="26"/>
        <source>attention kernel</source>
        <translation>注意力内核</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="27"/>
        <source>quantization</source>
        <translation>量化</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="28"/>
        <source>LoRA rank</source>
        <translation>LoRA 秩</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="29"/>
        <source>LoRA targets</source>
        <translation>LoRA 目标模块</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="30"/>
        <source>KV cache format</source>
        <translation>KV 缓存格式</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="31"/>
        <source>target GPU</source>
        <translation>目标 GPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="32"/>
        <source>number of GPUs</source>
        <translation>GPU 数量</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="33"/>
        <source>ZeRO / FSDP</source>
        <translation>ZeRO / FSDP</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="34"/>
        <source>CPU offload</source>
        <translation>CPU 卸载</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="35"/>
        <source>data set tokens</source>
        <translation>数据集 token 数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="36"/>
        <source>data set samples</source>
        <translation>数据集样本数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="37"/>
        <source>epochs</source>
        <translation>轮数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="38"/>
        <source>efficiency</source>
        <translation>效率</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="39"/>
        <source>framework</source>
        <translation>框架</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="40"/>
        <source>assumptions</source>
        <translation>假设</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="41"/>
        <source>plan</source>
        <translation>方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="42"/>
        <source>parallel layout</source>
        <translation>并行布局</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="43"/>
        <source>tensor parallel</source>
        <translation>张量并行</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="44"/>
        <source>pipeline parallel</source>
        <translation>流水线并行</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="45"/>
        <source>virtual pipeline stages</source>
        <translation>虚拟流水线阶段</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="46"/>
        <source>context parallel</source>
        <translation>上下文并行</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="47"/>
        <source>expert parallel</source>
        <translation>专家并行</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="48"/>
        <source>global batch</source>
        <translation>全局批次</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="53"/>
        <source>What to do with the model: pre-train, fine-tune (full, LoRA, QLoRA) or run inference. Decides which weights train, and so the gradients, optimizer states and FLOPs per token.</source>
        <extracomment>Tooltips: what the input changes (inputs that set their own keep theirs).</extracomment>
        <translation>要对模型做什么：预训练、微调（全量、LoRA、QLoRA）或推理。它决定哪些权重参与训练，从而决定梯度、优化器状态和每个 token 的 FLOPs。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="57"/>
        <source>Number format of the compute. Mixed fp16/bf16 keep fp32 master weights. Changes the bytes per weight and the GPU peak used for the time.</source>
        <translation>计算使用的数值格式。fp16/bf16 混合精度会保留 fp32 主权重。它改变每个权重的字节数，以及估算时间所用的 GPU 峰值。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="60"/>
        <source>Optimizer of the trained weights. Changes the optimizer-state memory per trained parameter (AdamW keeps two fp32 states, 8-bit AdamW two 8-bit ones, SGD and Lion one).</source>
        <translation>训练权重所用的优化器。它改变每个可训练参数的优化器状态显存（AdamW 保存两个 fp32 状态，8-bit AdamW 保存两个 8 位状态，SGD 和 Lion 保存一个）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="64"/>
        <source>Sequences per GPU in one forward/backward pass. Activation memory grows with it.</source>
        <translation>每块 GPU 一次前向/反向传播处理的序列数。激活显存随之增长。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="67"/>
        <source>Micro-batches per optimizer step. Raises the global batch without more memory.</source>
        <translation>每个优化器步包含的微批次数。增大全局批次而不增加显存。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="70"/>
        <source>Tokens per sequence. Activation, logits and KV-cache memory grow with it.</source>
        <translation>每条序列的 token 数。激活、logits 和 KV 缓存显存随之增长。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="72"/>
        <source>Inference: tokens generated per sequence. Changes the KV cache and the decoding time.</source>
        <translation>推理：每条序列生成的 token 数。影响 KV 缓存和解码时间。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="75"/>
        <source>Recompute activations in the backward pass instead of keeping them: less activation memory, about a third more compute when full.</source>
        <translation>在反向传播时重算激活而不是保存它们：激活显存更少；完全检查点时计算量约多三分之一。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="78"/>
        <source>Attention kernel. FlashAttention/SDPA never stores the sequence × sequence scores, so activations take less memory than with eager attention.</source>
        <translation>注意力内核。FlashAttention/SDPA 不保存“序列 × 序列”的注意力分数，因此激活显存比普通（eager）注意力少。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="81"/>
        <source>How the frozen base weights are stored (QLoRA and inference): fewer bits per weight, less weight memory.</source>
        <translation>冻结的基础权重如何存储（QLoRA 和推理）：每个权重的位数越少，权重显存越少。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="84"/>
        <source>Rank of the LoRA adapters. A higher rank trains more parameters: more gradient and optimizer-state memory.</source>
        <translation>LoRA 适配器的秩。秩越高，训练的参数越多：梯度和优化器状态显存也越多。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="87"/>
        <source>Which linear layers get adapters. Changes the trained parameters.</source>
        <translation>给哪些线性层加适配器。影响可训练参数。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="89"/>
        <source>Inference: number format of the KV cache. Changes its memory.</source>
        <translation>推理：KV 缓存的数值格式。影响其显存。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="91"/>
        <source>The card the plan is sized for: its memory decides the verdict, its peak rate the time. Detected cards come first.</source>
        <translation>方案所针对的显卡：它的显存决定结论，它的峰值算力决定时间。检测到的显卡排在最前。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="94"/>
        <source>GPUs training together. With ZeRO/FSDP the states are split over them; the time is the whole job&apos;s.</source>
        <translation>一起训练的 GPU 数量。使用 ZeRO/FSDP 时状态分摊到各卡；时间是整个任务的时间。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="97"/>
        <source>How the GPUs share the states: ZeRO-1 splits optimizer states, ZeRO-2 also gradients, ZeRO-3/FSDP also the weights.</source>
        <translation>各 GPU 如何分担状态：ZeRO-1 切分优化器状态，ZeRO-2 还切分梯度，ZeRO-3/FSDP 连权重也切分。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="100"/>
        <source>Move optimizer states (or the parameters too) to CPU RAM: less GPU memory, slower steps; the host RAM it needs is checked under the verdict.</source>
        <translation>把优化器状态（或连同参数）移到 CPU 内存：GPU 显存更少，每步更慢；所需的主机内存在结论下方检查。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="103"/>
        <source>Training tokens over all epochs, e.g. 2T, 300M. Sets the training time.</source>
        <translation>所有轮次合计的训练 token 数，例如 2T、300M。决定训练时间。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="105"/>
        <source>Samples per epoch, e.g. 52k. Sets the training time with the epochs.</source>
        <translation>每轮的样本数，例如 52k。与轮数一起决定训练时间。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="107"/>
        <source>Passes over the samples. Multiplies the training time.</source>
        <translation>遍历样本的次数。训练时间按此倍增。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="109"/>
        <source>The training framework or inference engine: its own memory overheads and kernels.</source>
        <translation>训练框架或推理引擎：它自身的显存开销和内核。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="112"/>
        <source>The pages: Rig, Probe, Plan and Compare (Ctrl+1 to Ctrl+4).</source>
        <translation>各页面：本机、实测、规划和对比（Ctrl+1 到 Ctrl+4）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="114"/>
        <source>The device the probes measure: a GPU, or the CPU.</source>
        <translation>实测所测量的设备：某块 GPU，或 CPU。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="116"/>
        <source>Whose past probe runs the history shows.</source>
        <translation>历史记录显示哪个设备过去的实测。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="118"/>
        <source>Which measured figure the chart draws over the runs.</source>
        <translation>图表按各次运行绘制哪项实测指标。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="120"/>
        <source>Past probe runs of this device; select two to compare them.</source>
        <translation>此设备过去的实测记录；选中两次即可比较。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/help_texts.py" line="122"/>
        <source>The two selected runs side by side, with the change.</source>
        <translation>并排显示选中的两次运行及其变化。</translation>
    </message>
</context>
<context>
    <name>Labels</name>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="17"/>
        <source>Pre-training</source>
        <translation>预训练</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="18"/>
        <source>Full fine-tune</source>
        <translation>全参微调</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="19"/>
        <source>LoRA fine-tune</source>
        <translation>LoRA 微调</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="20"/>
        <source>QLoRA fine-tune</source>
        <translation>QLoRA 微调</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="21"/>
        <source>Inference</source>
        <translation>推理</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="24"/>
        <source>fp32</source>
        <translation>fp32</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="25"/>
        <source>fp16 mixed</source>
        <translation>fp16 混合精度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="26"/>
        <source>bf16 mixed</source>
        <translation>bf16 混合精度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="27"/>
        <source>pure bf16</source>
        <translation>纯 bf16</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="28"/>
        <source>fp8 (bf16 master)</source>
        <translation>fp8（bf16 主权重）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="31"/>
        <source>AdamW</source>
        <translation>AdamW</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="32"/>
        <source>AdamW 8-bit</source>
        <translation>AdamW 8-bit</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="33"/>
        <source>Adafactor</source>
        <translation>Adafactor</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="34"/>
        <source>SGD with momentum</source>
        <translation>SGD（动量）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="35"/>
        <source>Lion</source>
        <translation>Lion</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="38"/>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="39"/>
        <source>selective</source>
        <translation>选择性</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="40"/>
        <source>full</source>
        <translation>全量</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="43"/>
        <source>eager</source>
        <translation>eager</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="44"/>
        <source>FlashAttention / SDPA</source>
        <translation>FlashAttention / SDPA</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="47"/>
        <source>none (16-bit)</source>
        <translation>不量化（16 位）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="48"/>
        <source>int8</source>
        <translation>int8</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="49"/>
        <source>NF4 (4-bit)</source>
        <translation>NF4（4 位）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="50"/>
        <source>NF4 + double quant</source>
        <translation>NF4 + 双重量化</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="51"/>
        <source>int4 (GPTQ/AWQ)</source>
        <translation>int4（GPTQ/AWQ）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="52"/>
        <source>int3 (GPTQ)</source>
        <translation>int3（GPTQ）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="53"/>
        <source>MXFP4 (4.25-bit)</source>
        <translation>MXFP4（4.25 位）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="54"/>
        <source>NVFP4 (4.5-bit)</source>
        <translation>NVFP4（4.5 位）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="55"/>
        <source>FP8 (block-scaled)</source>
        <translation>FP8（分块缩放）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="58"/>
        <source>automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="59"/>
        <source>Hugging Face + PEFT</source>
        <translation>Hugging Face + PEFT</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="60"/>
        <source>Unsloth</source>
        <translation>Unsloth</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="61"/>
        <source>torchtune</source>
        <translation>torchtune</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="62"/>
        <source>Axolotl</source>
        <translation>Axolotl</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="63"/>
        <source>Megatron-LM / NeMo</source>
        <translation>Megatron-LM / NeMo</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="64"/>
        <source>transformers (generate)</source>
        <translation>transformers（generate）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="65"/>
        <source>llama.cpp</source>
        <translation>llama.cpp</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="66"/>
        <source>Ollama</source>
        <translation>Ollama</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="67"/>
        <source>vLLM</source>
        <translation>vLLM</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="68"/>
        <source>ExLlamaV2</source>
        <translation>ExLlamaV2</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="69"/>
        <source>MLX (Apple)</source>
        <translation>MLX（Apple）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="72"/>
        <source>q, v projections</source>
        <translation>q、v 投影</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="73"/>
        <source>attention (q, k, v, o)</source>
        <translation>注意力（q、k、v、o）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="74"/>
        <source>all linear layers</source>
        <translation>所有线性层</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="77"/>
        <source>none (plain DDP)</source>
        <translation>无（普通 DDP）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="78"/>
        <source>ZeRO-1: optimizer</source>
        <translation>ZeRO-1：优化器</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="79"/>
        <source>ZeRO-2: + gradients</source>
        <translation>ZeRO-2：+ 梯度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="80"/>
        <source>ZeRO-3 / FSDP: all</source>
        <translation>ZeRO-3 / FSDP：全部</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="83"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="84"/>
        <source>optimizer → CPU</source>
        <translation>优化器 → CPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="85"/>
        <source>optimizer + weights → CPU</source>
        <translation>优化器 + 权重 → CPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="88"/>
        <source>weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="89"/>
        <source>gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="90"/>
        <source>optimizer states</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="91"/>
        <source>activations</source>
        <translation>激活值</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="92"/>
        <source>logits / loss</source>
        <translation>logits / 损失</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="93"/>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="94"/>
        <source>overhead</source>
        <translation>额外开销</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="97"/>
        <source>fits</source>
        <translation>放得下</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="98"/>
        <source>fits, but tight</source>
        <translation>放得下，但偏紧</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="99"/>
        <source>does not fit</source>
        <translation>放不下</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="100"/>
        <source>no GPU chosen</source>
        <translation>未选 GPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="103"/>
        <source>FlashAttention</source>
        <translation>FlashAttention</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="104"/>
        <source>gradient checkpointing</source>
        <translation>梯度检查点</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="105"/>
        <source>smaller micro-batch, more accumulation</source>
        <translation>减小微批次、增加梯度累积</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="106"/>
        <source>8-bit AdamW</source>
        <translation>8-bit AdamW</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="107"/>
        <source>LoRA</source>
        <translation>LoRA</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="108"/>
        <source>QLoRA</source>
        <translation>QLoRA</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="109"/>
        <source>more GPUs with ZeRO-3</source>
        <translation>更多 GPU 配合 ZeRO-3</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="110"/>
        <source>CPU offload of the optimizer</source>
        <translation>优化器卸载到 CPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="111"/>
        <source>CPU offload of parameters and optimizer</source>
        <translation>参数和优化器卸载到 CPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="112"/>
        <source>ZeRO-3 sharding</source>
        <translation>ZeRO-3 分片</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="113"/>
        <source>4-bit weights</source>
        <translation>4 位权重</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="114"/>
        <source>8-bit KV cache</source>
        <translation>8 位 KV 缓存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="115"/>
        <source>some layers in host RAM (-ngl)</source>
        <translation>部分层放在主机内存（-ngl）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="118"/>
        <source>compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="119"/>
        <source>communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="120"/>
        <source>memory bandwidth</source>
        <translation>显存带宽</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="121"/>
        <source>the host&apos;s work per token</source>
        <translation>主机端每个 token 的工作</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="124"/>
        <source>assumed</source>
        <translation>假设</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="125"/>
        <source>plan</source>
        <translation>方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="126"/>
        <source>catalog</source>
        <translation>目录</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="127"/>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/labels.py" line="159"/>
        <source>{source}: {detail}</source>
        <translation>{source}：{detail}</translation>
    </message>
</context>
<context>
    <name>LeverTexts</name>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="148"/>
        <source>quantize weights to 4 bits (int4, GPTQ/AWQ)</source>
        <extracomment>The advisor&apos;s lever details and costs (core/fit.py), as patterns of their English text: the numbers and ids in them are kept, the words translated.</extracomment>
        <translation>把权重量化到 4 位（int4，GPTQ/AWQ）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="149"/>
        <source>batch {a} -&gt; 1</source>
        <translation>批次 {a} → 1</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="150"/>
        <source>KV cache in fp8</source>
        <translation>KV 缓存用 fp8</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="152"/>
        <source>eager attention -&gt; FlashAttention/SDPA</source>
        <translation>普通注意力 → FlashAttention/SDPA</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="154"/>
        <source>activation checkpointing {a} -&gt; full</source>
        <translation>激活检查点 {a} → 完全</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="156"/>
        <source>micro-batch {a} -&gt; {b}, accumulation {c} -&gt; {d} (same global batch)</source>
        <translation>微批次 {a} → {b}，累积 {c} → {d}（全局批次不变）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="159"/>
        <source>optimizer {a} -&gt; adamw8bit</source>
        <translation>优化器 {a} → adamw8bit</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="161"/>
        <source>full fine-tune -&gt; LoRA adapters (rank 16, all linear layers)</source>
        <translation>全参微调 → LoRA 适配器（秩 16，所有线性层）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="164"/>
        <source>frozen base in 4-bit NF4 + LoRA adapters</source>
        <translation>冻结的 4 位 NF4 基座 + LoRA 适配器</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="166"/>
        <source>optimizer states to CPU RAM (DeepSpeed ZeRO-{a} offload)</source>
        <translation>优化器状态放到 CPU 内存（DeepSpeed ZeRO-{a} 卸载）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="168"/>
        <source>a 4-bit GGUF (Q4_K_M, ~4.9 bits per weight)</source>
        <translation>4 位 GGUF（Q4_K_M，每个权重约 4.9 位）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="170"/>
        <source>-ngl {a}: the other {b} layers in host RAM</source>
        <translation>-ngl {a}：其余 {b} 层放在主机内存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="172"/>
        <source>{a} -&gt; {b} GPUs, sharded with ZeRO-3/FSDP</source>
        <translation>{a} → {b} 张 GPU，用 ZeRO-3/FSDP 分片</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="174"/>
        <source>{a} -&gt; {b} GPUs, split (tensor parallel)</source>
        <translation>{a} → {b} 张 GPU，模型拆分（张量并行）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="175"/>
        <source>small quality loss</source>
        <translation>质量略有损失</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="176"/>
        <source>tiny quality loss</source>
        <translation>质量损失极小</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="177"/>
        <source>lower throughput</source>
        <translation>吞吐量降低</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="178"/>
        <source>none (usually faster)</source>
        <translation>无（通常更快）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="179"/>
        <source>about 33% more compute</source>
        <translation>计算量增加约 33%</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="180"/>
        <source>lower GPU utilisation</source>
        <translation>GPU 利用率降低</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="182"/>
        <source>none measurable for most fine-tunes</source>
        <translation>对多数微调几乎没有可测影响</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="184"/>
        <source>trains 0.1-1% of the weights</source>
        <translation>只训练 0.1–1% 的权重</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="185"/>
        <source>about 30% slower than LoRA</source>
        <translation>比 LoRA 慢约 30%</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="187"/>
        <source>slower steps, needs host RAM</source>
        <translation>每步更慢，需要主机内存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="189"/>
        <source>slower: those layers are read at host-memory speed</source>
        <translation>更慢：这些层以主机内存的速度读取</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="190"/>
        <source>{a}x the hardware</source>
        <translation>硬件为原来的 {a} 倍</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="192"/>
        <source>ZeRO stage {a} -&gt; 3 (FSDP full shard over {b} GPUs)</source>
        <translation>ZeRO 阶段 {a} → 3（在 {b} 块 GPU 上 FSDP 完全分片）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="194"/>
        <source>more communication per step</source>
        <translation>每步通信更多</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="196"/>
        <source>parameters and optimizer states to CPU RAM (ZeRO-3 / FSDP CPU offload)</source>
        <translation>参数和优化器状态放到 CPU 内存（ZeRO-3 / FSDP CPU 卸载）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="199"/>
        <source>much slower steps, needs host RAM</source>
        <translation>每步慢得多，需要主机内存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="212"/>
        <source>; </source>
        <translation>；</translation>
    </message>
</context>
<context>
    <name>Levers</name>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="86"/>
        <source>ZeRO-3 sharding over {n} GPUs</source>
        <extracomment>Levers of the advisor named with a number (the others are in widgets/labels.py).</extracomment>
        <translation>在 {n} 张 GPU 上做 ZeRO-3 分片</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="87"/>
        <source>{n} GPUs</source>
        <translation>{n} 张 GPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="106"/>
        <source>, </source>
        <translation>、</translation>
    </message>
</context>
<context>
    <name>LeversPanel</name>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="85"/>
        <source>Make it fit</source>
        <extracomment>Levers shown on a projector (those that make the plan fit, cheapest first).</extracomment>
        <translation>如何放得下</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="115"/>
        <source>Choose a target GPU to see what would make the plan fit.</source>
        <translation>选择目标 GPU，查看怎样才能放得下。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="118"/>
        <source>Requests wait. To run more at once:</source>
        <translation>请求需排队。要同时运行更多：</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="119"/>
        <source>Requests wait for room in the KV pool. Each change below lets more run at once:</source>
        <translation>请求在等待 KV 池的空间。以下每项改动都能让更多请求同时运行：</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="123"/>
        <source>It fits. To free memory:</source>
        <translation>放得下。要腾出显存：</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="125"/>
        <source>It fits. These changes would free memory for a larger batch or longer sequences:</source>
        <translation>放得下。以下改动可腾出显存，用于更大的批次或更长的序列：</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="128"/>
        <source>It fits; nothing to change.</source>
        <translation>放得下，无需改动。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="130"/>
        <source>It does not fit, and no change alone is enough. The first row is the fastest set of changes that fits; the others each on its own (click to apply):</source>
        <translation>放不下，任何单项改动都不够。第一行是能放下的最快改动组合；其余各行是单项改动（点击应用）：</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="134"/>
        <source>It does not fit. Each of these makes it fit:</source>
        <translation>放不下。以下每项都能让它放下：</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="136"/>
        <source>It does not fit. Each change below on its own, cheapest first (click to apply):</source>
        <translation>放不下。以下每项改动单独生效，代价小的在前（点击应用）：</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="139"/>
        <source>It does not fit, and no single change helps: try a smaller model or a larger GPU.</source>
        <translation>放不下，且单项改动都不够：请换更小的模型或显存更大的 GPU。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="177"/>
        <source>{n} GPUs, the model split across them</source>
        <translation>{n} 张 GPU，模型分摊到各卡</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="179"/>
        <source>{n} GPUs with ZeRO-3</source>
        <translation>{n} 张 GPU 配合 ZeRO-3</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="183"/>
        <source>{n} layers on the GPU, the rest in host RAM (-ngl)</source>
        <translation>{n} 层放在 GPU，其余放在主机内存（-ngl）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="196"/>
        <source>{title}: {before} → {after} requests at once, {verdict}</source>
        <translation>{title}：同时 {before} → {after} 个请求，{verdict}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="200"/>
        <source>none wait</source>
        <translation>无需等待</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="201"/>
        <source>some still wait</source>
        <translation>仍有请求排队</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="209"/>
        <source>fits</source>
        <translation>放得下</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="211"/>
        <source>still too big</source>
        <translation>仍放不下</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="212"/>
        <source>{title}: {before} → {after}, {verdict}</source>
        <translation>{title}：{before} → {after}，{verdict}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="223"/>
        <source>cost: {cost}</source>
        <translation>代价：{cost}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/levers.py" line="224"/>
        <source>time: {before} → {after}</source>
        <translation>时间：{before} → {after}</translation>
    </message>
</context>
<context>
    <name>Lists</name>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="255"/>
        <location filename="../../gpuadvisor/gui/first_run.py" line="80"/>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="245"/>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="221"/>
        <location filename="../../gpuadvisor/gui/pages/compare/format_tokens.py" line="228"/>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="147"/>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="68"/>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="244"/>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="474"/>
        <location filename="../../gpuadvisor/gui/pages/probe/run_panel.py" line="38"/>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="91"/>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="151"/>
        <source>, </source>
        <translation>、</translation>
    </message>
</context>
<context>
    <name>LiveChart</name>
    <message>
        <location filename="../../gpuadvisor/gui/charts/live.py" line="50"/>
        <source>temperature</source>
        <extracomment>Samples kept: two minutes at 2 Hz. Top of the percent axis (a little over 100, so that a line at the limit shows). Below 0 %: an idle card&apos;s 0 % utilization is a line of its own, not the x axis. Spacing of the percent axis&apos;s labels, the finest that fits the plot&apos;s height first. Series keys, in legend order.</extracomment>
        <translation>温度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/live.py" line="51"/>
        <source>SM clock</source>
        <translation>SM 频率</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/live.py" line="52"/>
        <source>power</source>
        <translation>功耗</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/live.py" line="53"/>
        <source>utilization</source>
        <translation>利用率</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/live.py" line="66"/>
        <source>Live readings of the GPU</source>
        <translation>GPU 实时读数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/live.py" line="114"/>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/live.py" line="115"/>
        <source>% of limit</source>
        <translation>占上限 %</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/live.py" line="131"/>
        <source>Latest reading at {t:.0f} s: {readings}.</source>
        <translation>第 {t:.0f} 秒的最新读数：{readings}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/live.py" line="139"/>
        <source>n/a</source>
        <translation>未知</translation>
    </message>
</context>
<context>
    <name>LocalModels</name>
    <message>
        <location filename="../../gpuadvisor/gui/local_models.py" line="43"/>
        <source>Hugging Face cache</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below. Id prefix of the picker&apos;s entries for models on this computer (``local:&lt;index&gt;``). Id of the group&apos;s title row (not selectable).</extracomment>
        <translation>Hugging Face 缓存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/local_models.py" line="44"/>
        <source>Ollama</source>
        <translation>Ollama</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/local_models.py" line="45"/>
        <source>LM Studio</source>
        <translation>LM Studio</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/local_models.py" line="90"/>
        <source>On this computer</source>
        <translation>本机上的模型</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/local_models.py" line="277"/>
        <source>Cannot open {path}: drop a plan ({suffix}), a config.json, a model folder, a .gguf file or an engine&apos;s log</source>
        <translation>无法打开 {path}：请拖入计划（{suffix}）、config.json、模型文件夹、.gguf 文件或推理引擎日志</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/local_models.py" line="284"/>
        <source>Cannot open model</source>
        <translation>无法打开模型</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/local_models.py" line="289"/>
        <source>Reading {path}…</source>
        <translation>正在读取 {path}…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/local_models.py" line="294"/>
        <source>Model: {name}</source>
        <translation>模型：{name}</translation>
    </message>
</context>
<context>
    <name>LogCheck</name>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="30"/>
        <source>total GPU memory (CUDA)</source>
        <translation>GPU 总显存（CUDA）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="31"/>
        <source>weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="32"/>
        <source>non-torch memory</source>
        <translation>非 PyTorch 显存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="33"/>
        <source>activation peak (profiling)</source>
        <translation>激活峰值（预分析）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="35"/>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="36"/>
        <source>KV cache tokens</source>
        <translation>KV 缓存 token 数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="37"/>
        <source>maximum concurrency</source>
        <translation>最大并发</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="38"/>
        <source>CUDA graphs</source>
        <translation>CUDA 图</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="39"/>
        <source>layers on the GPU</source>
        <translation>GPU 上的层</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="40"/>
        <source>weights on the GPU</source>
        <translation>GPU 上的权重</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="41"/>
        <source>weights in host RAM</source>
        <translation>主机内存中的权重</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="42"/>
        <source>compute buffer</source>
        <translation>计算缓冲区</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="43"/>
        <source>graph Ollama reserves</source>
        <translation>Ollama 预留的计算图</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="44"/>
        <source>peak allocated (PyTorch)</source>
        <translation>已分配峰值（PyTorch）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="45"/>
        <source>peak reserved (PyTorch)</source>
        <translation>已保留峰值（PyTorch）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="46"/>
        <source>needed when it ran out</source>
        <translation>显存耗尽时所需</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="47"/>
        <source>vision projector (mmproj)</source>
        <translation>视觉投影器（mmproj）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="48"/>
        <source>device memory (--fit)</source>
        <translation>设备显存（--fit）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="173"/>
        <source>{n} layers</source>
        <translation>{n} 层</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="174"/>
        <source>{n} tokens</source>
        <translation>{n} 个 token</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="184"/>
        <source>Planned vs observed</source>
        <translation>计划与实测对比</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="187"/>
        <source>{engine} log: {model} on {gpu}</source>
        <translation>{engine} 日志：{model}，运行于 {gpu}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="195"/>
        <source>Term</source>
        <translation>项目</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="196"/>
        <source>Planned</source>
        <translation>计划</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="197"/>
        <source>Observed</source>
        <translation>实测</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="198"/>
        <source>Difference</source>
        <translation>差异</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="220"/>
        <source>{term}: {why}</source>
        <translation>{term}：{why}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="226"/>
        <source>Assumed: {what}</source>
        <translation>假定：{what}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="230"/>
        <source>The run ran out of memory: {why}</source>
        <translation>运行时显存耗尽：{why}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="233"/>
        <source>The engine refused to start: {why}</source>
        <translation>引擎拒绝启动：{why}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="237"/>
        <source>Kept: estimates for {gpu} now use what this log showed.</source>
        <translation>已保存：{gpu} 的估算现在使用此日志显示的数据。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/window_files.py" line="239"/>
        <source>Cannot check the log</source>
        <translation>无法核对日志</translation>
    </message>
</context>
<context>
    <name>LogCheckSaid</name>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="105"/>
        <source>the whole plan (a PyTorch memory line names no model or settings): from the flags given</source>
        <extracomment>The assumptions and notes :mod:`gpuadvisor.probes.logcheck` writes (its ``Phrase`` templates, context &quot;LogCheckSaid&quot;); each phrase&apos;s ``args`` fill them in.</extracomment>
        <translation>整个计划（PyTorch 内存行不写模型和设置）：取自所给参数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="107"/>
        <source>max_model_len {n} (the log does not print it)</source>
        <translation>max_model_len {n}（日志未打印）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="108"/>
        <source>quant {quant} (the GGUF file&apos;s name; the log does not print its type)</source>
        <translation>量化 {quant}（取自 GGUF 文件名；日志未打印其类型）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="110"/>
        <source>quant {quant} (from the model&apos;s name {name}; the log does not print the quantization)</source>
        <translation>量化 {quant}（取自模型名 {name}；日志未打印量化方式）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="112"/>
        <source>tensor_parallel_size {n} (the log does not print it)</source>
        <translation>tensor_parallel_size {n}（日志未打印）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="113"/>
        <source>max_num_seqs {n} (as given; the log does not print it)</source>
        <translation>max_num_seqs {n}（按所给值；日志未打印）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="114"/>
        <source>max_num_seqs {n} (vLLM&apos;s default; the log does not print it)</source>
        <translation>max_num_seqs {n}（vLLM 默认值；日志未打印）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="116"/>
        <source>gpu_memory_utilization 0.9 (vLLM&apos;s default; not in the log)</source>
        <translation>gpu_memory_utilization 0.9（vLLM 默认值；日志中没有）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="118"/>
        <source>the vLLM release (not printed): the current one&apos;s rules (V1); give --engine-version</source>
        <translation>vLLM 版本（未打印）：按当前版本的规则（V1）；可用 --engine-version 指定</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="120"/>
        <source>n_ctx {n} (the log does not print it)</source>
        <translation>n_ctx {n}（日志未打印）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="121"/>
        <source>the GGUF file type {ftype} is not known: quant {quant}</source>
        <translation>未知的 GGUF 文件类型 {ftype}：量化取 {quant}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="122"/>
        <source>flash attention on (not in the log)</source>
        <translation>FlashAttention 开启（日志中没有）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="123"/>
        <source>flash attention off (not in the log)</source>
        <translation>FlashAttention 关闭（日志中没有）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="124"/>
        <source>an Ollama release before 0.30 (the log prints llm/memory.go&apos;s layer estimate, not its version)</source>
        <translation>0.30 之前的 Ollama 版本（日志打印了 llm/memory.go 的层数估计，而非版本号）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="126"/>
        <source>PyTorch ran out of memory; the estimate said it would fit</source>
        <translation>PyTorch 显存不足；而估算曾认为能放下</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="128"/>
        <source>PyTorch ran out of memory, as the estimate says: it does not fit</source>
        <translation>PyTorch 显存不足，与估算一致：放不下</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="130"/>
        <source>vLLM refused to start; the estimate said it would fit: {why}</source>
        <translation>vLLM 拒绝启动；而估算曾认为能放下：{why}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="132"/>
        <source>the estimate says vLLM would refuse this plan; the log shows it started</source>
        <translation>估算认为 vLLM 会拒绝此计划；日志显示它已启动</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="134"/>
        <source>model: the plan&apos;s, {model} (the log does not name one the catalog has)</source>
        <translation>模型：取计划中的 {model}（日志未写出目录中有的模型）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="136"/>
        <source>GPU: the plan&apos;s, {gpu} (the log does not name it); nothing is kept for it</source>
        <translation>GPU：取计划中的 {gpu}（日志未写出 GPU）；不为它保存任何观测</translation>
    </message>
</context>
<context>
    <name>LogCheckWhy</name>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="57"/>
        <source>the checkpoint&apos;s bytes differ from the plan&apos;s weights: check --quant (the log&apos;s quantization: {quantization}) and the model</source>
        <translation>检查点的字节数与计划的权重不符：请检查 --quant（日志中的量化：{quantization}）和模型</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="56"/>
        <source>the estimate used {source}; CUDA reported {seen}</source>
        <extracomment>The explanations :mod:`gpuadvisor.probes.logcheck` writes, as templates lupdate finds (context &quot;LogCheckWhy&quot;); the row&apos;s ``why_args`` fill them in.</extracomment>
        <translation>估算使用的是 {source}；CUDA 报告为 {seen}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="59"/>
        <source>vLLM&apos;s non-torch growth (cuBLAS, NCCL buffers) on this machine</source>
        <translation>vLLM 在本机上的非 torch 增长（cuBLAS、NCCL 缓冲区）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="61"/>
        <source>profiling pass of {tokens} tokens ({how})</source>
        <translation>{tokens} 个 token 的预分析（{how}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="63"/>
        <source>default: {why}</source>
        <translation>默认：{why}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="64"/>
        <source>the release&apos;s default</source>
        <translation>该版本的默认值</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="65"/>
        <source>vLLM {release} (V0): chunked prefill past {past} tokens, in {chunk}-token chunks</source>
        <translation>vLLM {release}（V0）：超过 {past} 个 token 时分块预填充，每块 {chunk} 个 token</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="67"/>
        <source>vLLM {release} (V0) without chunked prefill: max(max_model_len, {small})</source>
        <translation>vLLM {release}（V0）不分块预填充：max(max_model_len, {small})</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="69"/>
        <source>vllm serve&apos;s default on {gpu}</source>
        <translation>vllm serve 在 {gpu} 上的默认值</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="70"/>
        <source>Ollama&apos;s own estimate (fs/ggml GraphSize) of a {batch}-token batch over {ctx} tokens, the larger of its full- and partial-offload sizes</source>
        <translation>Ollama 自己的估算（fs/ggml GraphSize）：{batch} 个 token 的批次覆盖 {ctx} 个 token，取全部卸载与部分卸载两种大小中较大者</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="73"/>
        <source>what the budget leaves after the rows above</source>
        <translation>预算减去以上各行后剩下的部分</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="74"/>
        <source>KV cache / (16 x bytes per token) blocks of 16</source>
        <translation>KV 缓存 /（16 × 每 token 字节数），以 16 个为一块</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="75"/>
        <source>KV cache tokens / max_model_len</source>
        <translation>KV 缓存 token 数 / max_model_len</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="76"/>
        <source>captured after the KV pool, beside the budget</source>
        <translation>在 KV 池之后捕获，位于预算之外</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="77"/>
        <source>placed in the {free} the log says were free, less Ollama&apos;s 457 MiB minimum, the compute graph and one layer&apos;s margin</source>
        <translation>放入日志所说的空闲 {free} 中，减去 Ollama 的 457 MiB 最低预留、计算图和一层的余量</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="79"/>
        <source>the GGUF&apos;s tensors of the layers on the GPU (and the output layer)</source>
        <translation>GPU 上各层（以及输出层）的 GGUF 张量</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="81"/>
        <source>the token embedding (kept on the CPU) and the layers left there</source>
        <translation>token 嵌入（留在 CPU 上）以及留在那里的层</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="83"/>
        <source>the model file holds {seen}, the plan&apos;s {plan_bytes}: give --quant (the log&apos;s file type: {ftype})</source>
        <translation>模型文件为 {seen}，计划为 {plan_bytes}：请给出 --quant（日志中的文件类型：{ftype}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="85"/>
        <source>the model file holds {seen}, the plan&apos;s {plan_bytes}: give --quant (the log does not print the file type)</source>
        <translation>模型文件为 {seen}，计划为 {plan_bytes}：请给出 --quant（日志没有打印文件类型）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="87"/>
        <source>n_ctx {cells} cells x the GPU layers&apos; K and V ({kind})</source>
        <translation>n_ctx {cells} 个单元 × GPU 上各层的 K 和 V（{kind}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="88"/>
        <source>the worst-case graph of a 512-token micro-batch</source>
        <translation>512 个 token 的微批次的最坏情况计算图</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="89"/>
        <source>the estimate&apos;s total less the CUDA context (PyTorch does not count it)</source>
        <translation>估算的总量减去 CUDA 上下文（PyTorch 不计入它）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="91"/>
        <source>the projector&apos;s weights as its GGUF stores them (llama.cpp&apos;s estimate adds the buffers of its image pass)</source>
        <translation>投影器的权重，按其 GGUF 的存储方式（llama.cpp 的估计另含其图像处理的缓冲区）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="93"/>
        <source>llama.cpp&apos;s own projection of its buffers on the GPUs (weights, KV cache, compute) before --fit changes anything; the plan&apos;s are {plan_bytes}</source>
        <translation>llama.cpp 在 --fit 调整之前对自身 GPU 缓冲区（权重、KV 缓存、计算）的预估；方案的为 {plan_bytes}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/log_check.py" line="96"/>
        <source>PyTorch had {allocated} allocated and asked for {request} more: the run needs at least that, the estimate&apos;s total less the CUDA context is {plan_bytes}</source>
        <translation>PyTorch 已分配 {allocated}，又申请 {request}：运行至少需要这么多；估算总量减去 CUDA 上下文为 {plan_bytes}</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="174"/>
        <source>Rig</source>
        <translation>本机</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="174"/>
        <source>Probe</source>
        <translation>实测</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="174"/>
        <source>Plan</source>
        <translation>规划</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="175"/>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="177"/>
        <source>What is in this machine: GPUs, host, live readings</source>
        <translation>本机有什么：GPU、主机、实时读数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="178"/>
        <source>Measure this machine: throughput, bandwidth, history</source>
        <translation>实测本机：吞吐量、带宽、历史</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="179"/>
        <source>Will it fit, how long, what to change</source>
        <translation>放不放得下、要多久、该改什么</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="180"/>
        <source>Your rig, buy, rent or cloud: time and cost of each</source>
        <translation>你的机器、买卡、租用或云：各自的用时与费用</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="35"/>
        <source>&amp;File</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below.</extracomment>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="36"/>
        <source>&amp;Open plan…</source>
        <translation>打开方案(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="38"/>
        <source>&amp;Save plan…</source>
        <translation>保存方案(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="40"/>
        <source>Save plan &amp;as…</source>
        <translation>方案另存为(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="43"/>
        <source>Recent plans</source>
        <translation>最近的方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="47"/>
        <source>&amp;Export page as PNG…</source>
        <translation>将页面导出为 PNG(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="49"/>
        <source>&amp;Copy summary as Markdown</source>
        <translation>复制 Markdown 摘要(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="55"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="60"/>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="61"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="64"/>
        <source>gpuadvisor &amp;Help</source>
        <translation>gpuadvisor 帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="67"/>
        <source>&amp;Welcome</source>
        <translation>欢迎(&amp;W)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="69"/>
        <source>Show the first-run hints again: a demo rig, or measuring this GPU</source>
        <translation>再次显示首次运行提示：演示配置，或测量这块 GPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="81"/>
        <source>&amp;Presentation mode</source>
        <translation>演示模式(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="83"/>
        <source>Full screen, large fonts, thick chart lines, high contrast: for projectors</source>
        <translation>全屏、大字体、粗图线、高对比度：适合投影</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="87"/>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="88"/>
        <source>Colours of the window and the charts: follow the system, or always light or dark</source>
        <translation>窗口和图表的配色：跟随系统，或始终浅色或深色</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="93"/>
        <source>Follow the &amp;system</source>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="94"/>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="95"/>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="102"/>
        <source>&amp;Units</source>
        <translation>单位(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="106"/>
        <source>GiB (binary, 1024³ bytes)</source>
        <translation>GiB（二进制，1024³ 字节）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="107"/>
        <source>GB (decimal, 1000³ bytes)</source>
        <translation>GB（十进制，1000³ 字节）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="113"/>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="118"/>
        <source>System</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="63"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="73"/>
        <source>&amp;About gpuadvisor</source>
        <translation>关于 gpuadvisor(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="378"/>
        <source>Settings were reset</source>
        <translation>设置已重置</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="388"/>
        <source>About gpuadvisor</source>
        <translation>关于 gpuadvisor</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/window_files.py" line="41"/>
        <source>Open plan</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below.</extracomment>
        <translation>打开方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/window_files.py" line="42"/>
        <source>gpuadvisor plans (*{suffix});;All files (*)</source>
        <translation>gpuadvisor 方案 (*{suffix});;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/window_files.py" line="51"/>
        <source>Save plan</source>
        <translation>保存方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/window_files.py" line="52"/>
        <source>gpuadvisor plans (*{suffix})</source>
        <translation>gpuadvisor 方案 (*{suffix})</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/window_files.py" line="58"/>
        <source>Export page as PNG</source>
        <translation>将页面导出为 PNG</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/window_files.py" line="60"/>
        <source>PNG images (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/window_files.py" line="88"/>
        <source>Cannot open plan</source>
        <translation>无法打开方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/window_files.py" line="97"/>
        <source>Opened {path}</source>
        <translation>已打开 {path}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/window_files.py" line="120"/>
        <source>Cannot save plan</source>
        <translation>无法保存方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/window_files.py" line="127"/>
        <source>Saved {path}</source>
        <translation>已保存 {path}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/window_files.py" line="166"/>
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/window_files.py" line="167"/>
        <source>Save the changes to {name}?</source>
        <translation>是否保存对 {name} 的更改？</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/window_files.py" line="169"/>
        <source>Your changes to the plan are lost if you do not save them.</source>
        <translation>如果不保存，对方案的更改将会丢失。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="145"/>
        <source>No recent plans</source>
        <translation>没有最近的方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/menus.py" line="149"/>
        <source>Clear list</source>
        <translation>清空列表</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/window_files.py" line="153"/>
        <location filename="../../gpuadvisor/gui/window_files.py" line="164"/>
        <source>Untitled plan</source>
        <translation>未命名方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="295"/>
        <source>Demo rig &quot;{name}&quot;: pick another under Demo rig on the Rig page</source>
        <translation>演示配置“{name}”：可在本机页面的“演示配置”中换一个</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="304"/>
        <source>Undid: {what}</source>
        <translation>已撤销：{what}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="312"/>
        <source>Redid: {what}</source>
        <translation>已重做：{what}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="375"/>
        <source>Some of your files were set aside</source>
        <translation>你的部分文件已被放到一边</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="380"/>
        <source>Your catalog file was not used</source>
        <translation>你的目录文件未被使用</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="404"/>
        <source>Cannot export</source>
        <translation>无法导出</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="405"/>
        <source>Could not write {path}</source>
        <translation>无法写入 {path}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="407"/>
        <source>Wrote {path}</source>
        <translation>已写入 {path}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="414"/>
        <source>Summary copied to the clipboard as Markdown</source>
        <translation>已将 Markdown 摘要复制到剪贴板</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="486"/>
        <source>the system language</source>
        <translation>系统语言</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="489"/>
        <source>Language: {language}</source>
        <translation>语言：{language}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="491"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="492"/>
        <source>gpuadvisor will use {language} after a restart.</source>
        <translation>界面语言（{language}）将在重启 gpuadvisor 后生效。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/main_window.py" line="519"/>
        <source>Could not save settings: {error}</source>
        <translation>无法保存设置：{error}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/edit_menu.py" line="43"/>
        <location filename="../../gpuadvisor/gui/edit_menu.py" line="58"/>
        <source>&amp;Undo</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below.</extracomment>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/edit_menu.py" line="45"/>
        <location filename="../../gpuadvisor/gui/edit_menu.py" line="60"/>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/edit_menu.py" line="58"/>
        <source>&amp;Undo {what}</source>
        <translation>撤销{what}(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/edit_menu.py" line="60"/>
        <source>&amp;Redo {what}</source>
        <translation>重做{what}(&amp;R)</translation>
    </message>
</context>
<context>
    <name>MemoryCurveChart</name>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="75"/>
        <source>Memory per GPU curve</source>
        <extracomment>The initial view shows up to this multiple of the GPU&apos;s capacity. The badge&apos;s sentence takes at most this share of the plot&apos;s height (else its number).</extracomment>
        <translation>单卡显存曲线</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="77"/>
        <source>micro-batch</source>
        <translation>微批次</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="270"/>
        <source>target GPU</source>
        <translation>目标 GPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="274"/>
        <source>requests wait above {size} ({gpu})</source>
        <translation>超过 {size} 请求需排队（{gpu}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="277"/>
        <source>requests wait above {size}</source>
        <translation>超过 {size} 请求需排队</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="280"/>
        <source>out of memory above {size} ({gpu})</source>
        <translation>超过 {size} 即显存不足（{gpu}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="283"/>
        <source>out of memory above {size}</source>
        <translation>超过 {size} 显存不足</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="299"/>
        <source>memory per GPU</source>
        <translation>单卡显存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="300"/>
        <source>your plan</source>
        <translation>当前方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="301"/>
        <source>largest that fits</source>
        <translation>可容纳的最大值</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="304"/>
        <source>requests wait</source>
        <translation>请求需排队</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="306"/>
        <source>out of memory</source>
        <translation>显存不足</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="310"/>
        <source>memory per GPU ({unit})</source>
        <translation>单卡显存（{unit}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="313"/>
        <source>memory ({unit})</source>
        <translation>显存（{unit}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="384"/>
        <source>the model&apos;s whole context fits: {value}</source>
        <translation>模型的整个上下文都放得下：{value}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="386"/>
        <source>longest prompt with all requests at once: {value}</source>
        <translation>所有请求可同时处理的最长提示：{value}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/sentences.py" line="27"/>
        <source>Memory per GPU against {what}: {low} at {x0} to {high} at {x1}.</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below.</extracomment>
        <translation>单卡显存随{what}变化：{x0} 时 {low}，{x1} 时 {high}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/sentences.py" line="33"/>
        <source>Your plan: {value} ({size}).</source>
        <translation>当前方案：{value}（{size}）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="388"/>
        <source>largest {what} that fits: {value}</source>
        <translation>最大可容纳{what}：{value}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="394"/>
        <source>no {what} in this range fits</source>
        <translation>范围内{what}都放不下</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="516"/>
        <source>{what} {value}: {size}</source>
        <translation>{what} {value}：{size}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/curves.py" line="523"/>
        <source>{point} — {verdict}</source>
        <translation>{point} — {verdict}</translation>
    </message>
</context>
<context>
    <name>MemoryTerms</name>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="89"/>
        <source>weights</source>
        <extracomment>Okabe–Ito colour-blind-safe palette (plus its usual neutral grey). One colour per memory term (keys are :data:`gpuadvisor.core.memory.TERMS`). Neighbours in the stacking order never share a hue family, so adjacent segments stay distinguishable. Fit categories used by the fit map and the verdict badge. Fill colour per fit category: green / amber / red in their colour-blind-safe forms (the three also differ in lightness, so they survive greyscale printing), grey when no GPU. Text colour that stays readable on each category&apos;s fill (large bold text, ≥ 3:1). The core&apos;s verdict strings (``Estimate.verdict``) mapped to categories. Colour of the plotted quantity in line charts. Bytes per display unit. Memory of GPUs is marketed in &quot;GB&quot; that are really GiB; the user picks which unit the axes use.</extracomment>
        <translation>权重</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="90"/>
        <source>gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="91"/>
        <source>optimizer states</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="92"/>
        <source>activations</source>
        <translation>激活值</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="93"/>
        <source>logits / loss</source>
        <translation>logits / 损失</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="94"/>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/style.py" line="95"/>
        <source>overhead</source>
        <translation>额外开销</translation>
    </message>
</context>
<context>
    <name>Numbers</name>
    <message>
        <location filename="../../gpuadvisor/gui/numbers.py" line="41"/>
        <source>unknown</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below.</extracomment>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/numbers.py" line="52"/>
        <source>{n} ms</source>
        <translation>{n} 毫秒</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/numbers.py" line="52"/>
        <location filename="../../gpuadvisor/gui/numbers.py" line="105"/>
        <source>{n} s</source>
        <extracomment>Chinese counts large numbers in myriads: 万 (10^4), 亿 (10^8), 万亿 (10^12) - &quot;6.65M tokens&quot; reads 665万, &quot;8.03B parameters&quot; 80.3亿.</extracomment>
        <translation>{n} 秒</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/numbers.py" line="53"/>
        <location filename="../../gpuadvisor/gui/numbers.py" line="106"/>
        <source>{n} min</source>
        <translation>{n} 分钟</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/numbers.py" line="53"/>
        <location filename="../../gpuadvisor/gui/numbers.py" line="107"/>
        <location filename="../../gpuadvisor/gui/pages/compare/format.py" line="172"/>
        <source>{n} h</source>
        <translation>{n} 小时</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/numbers.py" line="54"/>
        <source>{n} days</source>
        <translation>{n} 天</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/numbers.py" line="55"/>
        <source>{n} years</source>
        <translation>{n} 年</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/numbers.py" line="108"/>
        <source>{n} d</source>
        <translation>{n} 天</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/numbers.py" line="109"/>
        <source>{n} wk</source>
        <translation>{n} 周</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/numbers.py" line="110"/>
        <source>{n} mo</source>
        <translation>{n} 个月</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/numbers.py" line="114"/>
        <source>{n} yr</source>
        <translation>{n} 年</translation>
    </message>
</context>
<context>
    <name>PlanPage</name>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="90"/>
        <source>Drawing charts…</source>
        <extracomment>A parenthesized variant at the end of a GPU&apos;s name. Under this name lupdate finds the literal (context, text) calls below. Least plot height (pixels, axes and legend not counted) that reads at a glance: the grid is used while each of its plots gets this much, the tabs otherwise. The charts were just built, empty: the page draws the plan in them. The grid became tabs or the other way round.</extracomment>
        <translation>正在绘制图表…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="142"/>
        <source>micro-batch</source>
        <translation>微批次</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="144"/>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="198"/>
        <source>sequence length</source>
        <translation>序列长度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="155"/>
        <source>Memory per GPU</source>
        <translation>单卡显存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="182"/>
        <source>What fits: micro-batch × sequence length (cells: {unit} per GPU)</source>
        <translation>能放下什么：微批次 × 序列长度（格中为单卡 {unit}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="159"/>
        <source>Users at once: tokens per second</source>
        <translation>同时服务的用户：每秒 token 数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="184"/>
        <source>What fits: requests × prompt length (cells: {unit} per GPU to serve them all at once)</source>
        <translation>能放下什么：请求数 × 提示长度（格中为同时服务这些请求所需的单卡 {unit}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="194"/>
        <source>Memory vs prompt length</source>
        <translation>显存随提示长度的变化</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="197"/>
        <source>prompt length</source>
        <translation>提示长度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="209"/>
        <source>Requests at once ({unit})</source>
        <translation>同时处理的请求（{unit}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="211"/>
        <source>What fits ({unit})</source>
        <translation>能放下什么（{unit}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="212"/>
        <source>Users at once</source>
        <translation>同时服务的用户</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="213"/>
        <source>By micro-batch</source>
        <translation>按微批次</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="214"/>
        <source>By prompt length</source>
        <translation>按提示长度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="215"/>
        <source>By sequence length</source>
        <translation>按序列长度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="379"/>
        <source>the server&apos;s share of {gpu}</source>
        <translation>{gpu} 中服务器占用的份额</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="380"/>
        <source>the card</source>
        <translation>显卡</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="157"/>
        <source>Memory vs micro-batch</source>
        <translation>显存随微批次的变化</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="158"/>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="196"/>
        <source>Memory vs sequence length</source>
        <translation>显存随序列长度的变化</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="112"/>
        <source>Model</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below. Id of the GPU picker&apos;s &quot;no GPU&quot; entry. llama.cpp&apos;s backends by their own names (proper nouns, not translated).</extracomment>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="124"/>
        <source>Type to search presets</source>
        <translation>输入以搜索预设模型</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="126"/>
        <source>Type part of a name (e.g. &quot;llama 8b&quot;) and press Enter, or pick from the list</source>
        <translation>输入名称的一部分（如 “llama 8b”）后按回车，或从列表中选择</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="130"/>
        <source>Open config.json…</source>
        <translation>打开 config.json…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="131"/>
        <source>Use a Hugging Face config.json from disk</source>
        <translation>使用本地的 Hugging Face config.json</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="133"/>
        <source>Custom…</source>
        <translation>自定义…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="134"/>
        <source>Type in architecture numbers</source>
        <translation>手动输入架构参数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="161"/>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="170"/>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="166"/>
        <source>The software that runs the plan: a fine-tuning framework changes what is kept in memory (logits, checkpoints), an inference engine how weights and the KV cache are stored and how fast tokens come</source>
        <translation>运行该方案的软件：微调框架决定显存中保留什么（logits、检查点），推理引擎决定权重和 KV 缓存如何存放、token 生成多快</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="171"/>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="173"/>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="175"/>
        <source>Software</source>
        <translation>软件</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="179"/>
        <source>Batch</source>
        <translation>批次</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="183"/>
        <source>Sequences per GPU per forward/backward pass</source>
        <translation>每张 GPU 每次前向/反向传播的序列数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="188"/>
        <source>Micro-batches per optimizer step</source>
        <translation>每个优化器步的微批次数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="191"/>
        <source>Tokens per sequence</source>
        <translation>每个序列的 token 数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="195"/>
        <source>Inference: tokens generated per sequence</source>
        <translation>推理：每个序列生成的 token 数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="201"/>
        <source>Micro-batch</source>
        <translation>微批次</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="203"/>
        <source>Grad. accumulation</source>
        <translation>梯度累积</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="205"/>
        <source>Sequence length</source>
        <translation>序列长度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="207"/>
        <source>New tokens</source>
        <translation>生成 token 数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="212"/>
        <source>Memory savers</source>
        <translation>显存优化</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="222"/>
        <source>Checkpointing</source>
        <translation>梯度检查点</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="223"/>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="224"/>
        <source>Quantization</source>
        <translation>量化</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="225"/>
        <source>LoRA rank</source>
        <translation>LoRA 秩</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="226"/>
        <source>LoRA targets</source>
        <translation>LoRA 目标模块</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="227"/>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="233"/>
        <source>Inference engine</source>
        <translation>推理引擎</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="249"/>
        <source>llama.cpp --n-cpu-moe: the experts of the first N layers stay in host RAM (a large MoE model on a small card)</source>
        <translation>llama.cpp --n-cpu-moe：前 N 层的专家留在主机内存中（用小显卡跑大型 MoE 模型）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="256"/>
        <source>default (0.90)</source>
        <translation>默认（0.90）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="259"/>
        <source>vLLM --gpu-memory-utilization: the share of the card vLLM takes; the KV cache gets what is left after weights and activations</source>
        <translation>vLLM --gpu-memory-utilization：vLLM 占用的显存比例；减去权重和激活值后剩下的给 KV 缓存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="262"/>
        <source>GPU layers</source>
        <translation>GPU 层数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="264"/>
        <source>MoE layers on CPU</source>
        <translation>CPU 上的 MoE 层数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="267"/>
        <source>llama.cpp&apos;s GPU backend, the one it was built with: CUDA on NVIDIA, ROCm on AMD, Metal on Apple, Vulkan on any (it launches every kernel on its own, without CUDA graphs). Ollama picks its backend itself.</source>
        <translation>llama.cpp 的 GPU 后端，即编译时选用的后端：NVIDIA 用 CUDA，AMD 用 ROCm，Apple 用 Metal，任何显卡都可用 Vulkan（它逐个启动内核，没有 CUDA graphs）。Ollama 自己选择后端。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="271"/>
        <source>llama.cpp backend</source>
        <translation>llama.cpp 后端</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="273"/>
        <source>vLLM memory share</source>
        <translation>vLLM 显存比例</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="280"/>
        <source>Ollama&apos;s num_ctx: the context it allocates a KV cache for (default: Ollama&apos;s for the card&apos;s memory, up to the model&apos;s own context)</source>
        <translation>Ollama 的 num_ctx：为其分配 KV 缓存的上下文（默认：Ollama 按显卡显存给出的值，不超过模型自身的上下文）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="283"/>
        <source>Ollama context</source>
        <translation>Ollama 上下文</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="287"/>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="289"/>
        <source>Type to search GPUs</source>
        <translation>输入以搜索 GPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="296"/>
        <source>Target GPU</source>
        <translation>目标 GPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="297"/>
        <source>Number of GPUs</source>
        <translation>GPU 数量</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="299"/>
        <source>ZeRO / FSDP</source>
        <translation>ZeRO / FSDP</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="301"/>
        <source>CPU offload</source>
        <translation>CPU 卸载</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="311"/>
        <source>Data set</source>
        <translation>数据集</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="313"/>
        <source>The data set the time is for: its samples at their measured token lengths (a fine-tune that names none is timed on Alpaca)</source>
        <translation>时间所依据的数据集：按实测 token 长度计算其样本（未指定数据集的微调按 Alpaca 计时）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="316"/>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="317"/>
        <source>Pack samples into full sequences</source>
        <translation>将样本打包成完整序列</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="320"/>
        <source>Packing (TRL packing=True) fills every sequence with real tokens; without it each micro-batch is padded to its longest sample</source>
        <translation>打包（TRL packing=True）让每个序列都填满真实 token；不打包时，每个微批次补齐到其中最长的样本</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="325"/>
        <source>Training tokens over all epochs, e.g. 2T, 300M</source>
        <translation>所有轮次合计的训练 token 数，如 2T、300M</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="328"/>
        <source>Samples per epoch, e.g. 52k</source>
        <translation>每轮的样本数，如 52k</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="333"/>
        <source>Tokens</source>
        <translation>token 数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="335"/>
        <source>or samples</source>
        <translation>或样本数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="337"/>
        <source>× epochs</source>
        <translation>× 轮数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="278"/>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="385"/>
        <source>default</source>
        <translation>默认</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="239"/>
        <source>as many as fit</source>
        <translation>尽可能多</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="241"/>
        <source>llama.cpp -ngl / Ollama num_gpu: layers kept on the GPU; the rest are read from host RAM for every token (slower). Left at &quot;as many as fit&quot;, llama.cpp&apos;s --fit keeps 1 GiB of the card free (an MoE&apos;s experts move to host RAM first) and Ollama uses its own estimate.</source>
        <translation>llama.cpp -ngl / Ollama num_gpu：留在 GPU 上的层数；其余层每个 token 都要从主机内存读取（更慢）。保持“尽可能多”时，llama.cpp 的 --fit 会让显卡留出 1 GiB 空闲（MoE 的专家先移到主机内存），Ollama 则按它自己的估算。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="355"/>
        <source>default: {type} (what the engine runs)</source>
        <translation>默认：{type}（引擎实际运行的类型）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="390"/>
        <source>the card&apos;s own</source>
        <translation>显卡原生</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="395"/>
        <source>same as compute (16-bit)</source>
        <translation>同计算精度（16 位）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="421"/>
        <source>No GPU (memory only)</source>
        <translation>不选 GPU（仅估算显存）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="505"/>
        <source>automatic (Hugging Face + PEFT)</source>
        <translation>自动（Hugging Face + PEFT）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="506"/>
        <source>automatic (by the weights and the GPU)</source>
        <translation>自动（按权重格式和 GPU）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="531"/>
        <source>default: 20 tokens per parameter</source>
        <translation>默认：每个参数 20 个 token</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="532"/>
        <source>default: {name}</source>
        <translation>默认：{name}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="594"/>
        <source>{count} active</source>
        <translation>激活 {count}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/inputs.py" line="598"/>
        <source>+ {count} vision</source>
        <translation>另加视觉部分 {count}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="71"/>
        <source>Not given: assuming {amount} (see under the time). Pick a data set, or fill in tokens, or samples × epochs.</source>
        <translation>未填写：假设为 {amount}（见时间下方）。请选择数据集，或填写 token 数，或样本数 × 轮数。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="86"/>
        <source>n/a</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="133"/>
        <source>Checked on your {name} ({total} total, {free} free now)</source>
        <translation>按你的 {name} 检查（总计 {total}，当前可用 {free}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="139"/>
        <source>unmatched card: memory from the driver, time from the {reference} peak</source>
        <translation>未匹配的显卡：显存取自驱动，时间按 {reference} 的峰值估算</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/page.py" line="219"/>
        <source>No preset matches &quot;{text}&quot;</source>
        <translation>没有与“{text}”匹配的预设模型</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/page.py" line="224"/>
        <source>No GPU in the catalog matches &quot;{text}&quot;</source>
        <translation>目录中没有与“{text}”匹配的 GPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="80"/>
        <source>&quot;{text}&quot; is not a count: type a number like 2T, 1.5B, 300M or 52k</source>
        <translation>“{text}”不是有效的数量：请输入 2T、1.5B、300M 或 52k 这样的数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/page.py" line="193"/>
        <source>Plan</source>
        <extracomment>Milliseconds without a change after which a burst of changes counts as over (the levers, deferred during the burst, are then evaluated). Plan fields whose widgets this page owns (error messages for other fields go to the top). A message for the window&apos;s status bar. The charts exist and show the plan (see ``defer_charts``). () -&gt; (total, available) bytes of this machine&apos;s RAM, for plans that offload to the CPU (tests replace it).</extracomment>
        <translation>规划</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/page.py" line="194"/>
        <source>Hide the plan&apos;s inputs</source>
        <translation>收起规划的输入</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/page.py" line="195"/>
        <source>Show the plan&apos;s inputs</source>
        <translation>展开规划的输入</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/page.py" line="321"/>
        <source>Applied: {lever}</source>
        <translation>已应用：{lever}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/page.py" line="327"/>
        <source>Open a Hugging Face config.json</source>
        <translation>打开 Hugging Face config.json</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/page.py" line="328"/>
        <source>Model config (*.json);;All files (*)</source>
        <translation>模型配置 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="20"/>
        <source>{name} (custom, {count})</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below.</extracomment>
        <translation>{name}（自定义，{count}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="54"/>
        <source>{n} × {seq} tokens per optimizer step on average (up to {most})</source>
        <translation>每个优化器步平均 {n} × {seq} 个 token（最多 {most}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="58"/>
        <source>{n} × {seq} tokens per optimizer step</source>
        <translation>每个优化器步 {n} × {seq} 个 token</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="67"/>
        <source>samples</source>
        <translation>样本</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="67"/>
        <source>tokens</source>
        <translation>token</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="74"/>
        <source>Training on {amount} in all.</source>
        <translation>共训练 {amount}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="75"/>
        <source>Inference: no data set.</source>
        <translation>推理：无需数据集。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="121"/>
        <source>{free} free</source>
        <extracomment>A card&apos;s memory in its name (&quot;RTX 3060 12GB&quot;, &quot;H100 SXM5 80GB&quot;, &quot;(DGX Spark, 128 GB)&quot;).</extracomment>
        <translation>可用 {free}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="124"/>
        <source>Demo rig: {name} · {memory}</source>
        <translation>演示配置：{name} · {memory}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="126"/>
        <source>This machine: {name} · {memory}</source>
        <translation>本机：{name} · {memory}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="147"/>
        <source>GPU {index} ({name})</source>
        <translation>GPU {index}（{name}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="149"/>
        <source>⚠ Lost from the rig (fell off the bus): {gone}; left out of the plan&apos;s choices</source>
        <translation>⚠ 已从配置中掉线（从总线上掉了）：{gone}；规划不再用它</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="28"/>
        <source>{total} parameters</source>
        <translation>参数量 {total}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="31"/>
        <source>{active} active</source>
        <translation>激活 {active}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="35"/>
        <source>{n} trainable ({share:.2f}%)</source>
        <translation>可训练 {n}（{share:.2f}%）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="38"/>
        <source>{layers} layers, hidden {hidden}, context {ctx}</source>
        <translation>{layers} 层，隐藏维度 {hidden}，上下文 {ctx}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/format.py" line="42"/>
        <source>one sample = {unit}</source>
        <translation>一个样本 = {unit}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/charts.py" line="359"/>
        <source>your plan</source>
        <translation>当前方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="106"/>
        <source>Auto (fastest that fits)</source>
        <extracomment>Under this name lupdate finds the literal (context, text) calls below.</extracomment>
        <translation>自动（能放下的最快布局）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="107"/>
        <source>Pinned</source>
        <translation>固定</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="108"/>
        <source>How the GPUs split the job: automatically (the fastest layout that fits their memory, holding the global batch) or pinned to the degrees below (those left free are searched)</source>
        <translation>各 GPU 如何分担任务：自动（在保持全局批量的前提下，选显存放得下的最快布局），或固定为下面的并行度（未固定的仍由搜索决定）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="112"/>
        <source>Parallel layout</source>
        <translation>并行布局</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="115"/>
        <source>Layout</source>
        <translation>布局</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="123"/>
        <source>Tensor parallel: GPUs that split every layer&apos;s matrices (within a node); less memory per GPU, more traffic</source>
        <translation>张量并行：在节点内由多块 GPU 切分每层的矩阵；每块 GPU 显存更少，通信更多</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="125"/>
        <source>Pipeline parallel: stages of consecutive layers; less memory per GPU, an idle bubble at each step</source>
        <translation>流水线并行：按连续的层分成若干阶段；每块 GPU 显存更少，每步有一段空闲气泡</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="127"/>
        <source>Virtual pipeline stages per GPU (interleaved 1F1B): a smaller bubble, more messages; needs PP of 2 or more</source>
        <translation>每块 GPU 的虚拟流水线阶段数（交错 1F1B）：气泡更小，消息更多；需要 PP 至少为 2</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="129"/>
        <source>Context parallel: GPUs that split each sequence (long sequences)</source>
        <translation>上下文并行：由多块 GPU 切分每条序列（用于长序列）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="131"/>
        <source>Expert parallel: GPUs that split a mixture of experts&apos; experts (MoE models only)</source>
        <translation>专家并行：由多块 GPU 切分混合专家模型的专家（仅限 MoE 模型）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="134"/>
        <source>Tensor parallel (TP)</source>
        <translation>张量并行（TP）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="135"/>
        <source>Pipeline parallel (PP)</source>
        <translation>流水线并行（PP）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="136"/>
        <source>Virtual pipeline stages (VPP)</source>
        <translation>虚拟流水线阶段（VPP）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="137"/>
        <source>Context parallel (CP)</source>
        <translation>上下文并行（CP）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="138"/>
        <source>Expert parallel (EP)</source>
        <translation>专家并行（EP）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="155"/>
        <source>Data-parallel replicas: the GPUs left, n ÷ (TP × PP × CP)</source>
        <translation>数据并行副本数：剩下的 GPU，n ÷ (TP × PP × CP)</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="163"/>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="168"/>
        <source>Pin this layout</source>
        <translation>固定此布局</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="165"/>
        <source>Keep the layout the search chose (its TP, PP, VPP, CP and EP) while you change the rest of the plan</source>
        <translation>保留搜索选出的布局（其 TP、PP、VPP、CP 和 EP），同时修改计划的其余部分</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="224"/>
        <source>DP {dp}</source>
        <translation>DP {dp}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="228"/>
        <source>Timed without a layout: CPU offload, a set efficiency or a model without layers</source>
        <translation>不按并行布局计时：CPU 卸载、自设效率或没有层结构的模型</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="231"/>
        <source>Degrees set here are kept; the search picks the rest, the ZeRO stage and the micro-batches</source>
        <translation>此处设定的并行度保持不变；其余并行度、ZeRO 阶段和微批次由搜索决定</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="234"/>
        <source>Chosen by the search (shown, not set)</source>
        <translation>由搜索选出（仅显示，未固定）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="243"/>
        <source>Pinned:</source>
        <translation>固定：</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/plan/layout_pins.py" line="244"/>
        <source>Chosen:</source>
        <translation>选出：</translation>
    </message>
</context>
<context>
    <name>ProbeCharts</name>
    <message>
        <location filename="../../gpuadvisor/gui/charts/probe_charts.py" line="38"/>
        <source>n/a</source>
        <extracomment>Thickness of a measured bar and of the peak behind it, in rows. Room right of the longest bar for its label, as a share of the bar. The peak bar&apos;s colours on a light plot (the theme&apos;s ``peak_fill``/``peak_line`` follow the palette).</extracomment>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/probe_charts.py" line="67"/>
        <source>Measured against the catalog peak</source>
        <translation>实测值与目录峰值</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/probe_charts.py" line="140"/>
        <source>{value} · {percent:.0f}% of {peak}</source>
        <translation>{value} · 为 {peak} 的 {percent:.0f}%</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/probe_charts.py" line="176"/>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/probe_charts.py" line="178"/>
        <source>catalog peak</source>
        <translation>目录峰值</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/probe_charts.py" line="204"/>
        <source>measured: {value} {unit}</source>
        <translation>实测：{value} {unit}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/probe_charts.py" line="208"/>
        <source>catalog peak: {value} {unit}</source>
        <translation>目录峰值：{value} {unit}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/probe_charts.py" line="214"/>
        <source>{percent:.1f}% of peak</source>
        <translation>峰值的 {percent:.1f}%</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/probe_charts.py" line="229"/>
        <source>History of a measured figure</source>
        <translation>实测指标的历史</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/probe_charts.py" line="289"/>
        <source>{label} over {runs} runs: {first} {unit} on {first_day}, {last} {unit} on {last_day}.</source>
        <translation>{label}，共 {runs} 次运行：{first_day} 为 {first} {unit}，{last_day} 为 {last} {unit}。</translation>
    </message>
</context>
<context>
    <name>ProbePage</name>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="42"/>
        <source>Matmul throughput</source>
        <extracomment>``translate(context, text) -&gt; text for people`` (Qt&apos;s ``QCoreApplication.translate``). The translation context of this page&apos;s sentences.</extracomment>
        <translation>矩阵乘吞吐量</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="43"/>
        <source>Memory bandwidth</source>
        <translation>显存带宽</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="44"/>
        <source>Host ↔ device copies</source>
        <translation>主机 ↔ 设备拷贝</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="45"/>
        <source>Training step</source>
        <translation>训练步</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="46"/>
        <source>Data reading</source>
        <translation>数据读取</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="64"/>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="47"/>
        <source>Plan check</source>
        <translation>方案核验</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="39"/>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="48"/>
        <source>Burn-in</source>
        <translation>烤机</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="51"/>
        <source>Compute: measured vs catalog peak (TFLOPS)</source>
        <translation>算力：实测与目录峰值对比（TFLOPS）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="52"/>
        <source>Bandwidth: measured vs catalog (GB/s)</source>
        <translation>带宽：实测与目录值对比（GB/s）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="60"/>
        <source>run</source>
        <translation>整次运行</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/page.py" line="130"/>
        <source>Probe</source>
        <translation>实测</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/pickers.py" line="161"/>
        <source>Python:</source>
        <translation>Python：</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/pickers.py" line="167"/>
        <source>The Python environment the probes run in: one with PyTorch, such as your training environment</source>
        <translation>运行实测的 Python 环境：需装有 PyTorch，例如你的训练环境</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/pickers.py" line="174"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/pickers.py" line="175"/>
        <source>Choose a python executable with PyTorch</source>
        <translation>选择一个装有 PyTorch 的 python 可执行文件</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/pickers.py" line="178"/>
        <source>Rescan</source>
        <translation>重新扫描</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/pickers.py" line="179"/>
        <source>Look for Python environments again</source>
        <translation>重新查找 Python 环境</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/pickers.py" line="183"/>
        <source>Device:</source>
        <translation>设备：</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="29"/>
        <source>Quick</source>
        <translation>快速</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="31"/>
        <source>{probes}, at small sizes</source>
        <translation>{probes}，小规模</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="33"/>
        <source>Full</source>
        <translation>完整</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="34"/>
        <source>{probes}, at larger sizes: minutes</source>
        <translation>{probes}，较大规模：需几分钟</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="40"/>
        <source>Sustained load with every result checked: do clocks and throughput hold up as the GPU heats up, and are its results right?</source>
        <translation>持续满载并逐一校验结果：GPU 升温后频率和吞吐量能否保持，计算结果是否正确？</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="48"/>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="49"/>
        <source>How long the burn-in keeps the device busy</source>
        <translation>烤机让设备满载多长时间</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="57"/>
        <source>The burn-in is asked to stop when the GPU reaches this temperature</source>
        <translation>GPU 达到此温度时请求烤机停止</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="61"/>
        <source>stop at</source>
        <translation>停止温度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="65"/>
        <source>Build the Plan page&apos;s model at depths 1 and 2, train a few steps at the plan&apos;s batch and sequence length, and compare memory and time with the estimate</source>
        <translation>按规划页的模型构建 1 层和 2 层版本，以方案的批大小和序列长度训练几步，并将显存和时间与估算对比</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="70"/>
        <source>Dataset disk…</source>
        <translation>数据集磁盘…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="71"/>
        <source>Pick your dataset folder: how fast it reads, and whether that keeps up with the tokens per second the plan trains at</source>
        <translation>选择数据集文件夹：测量其读取速度，以及是否跟得上规划训练时每秒处理的 token 数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="76"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="77"/>
        <source>End the burn-in early and keep what it measured</source>
        <translation>提前结束烤机并保留已测得的结果</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="79"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/controls.py" line="80"/>
        <source>Stop the probe now; nothing is saved</source>
        <translation>立即停止实测；不保存任何结果</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/run_panel.py" line="31"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/run_panel.py" line="34"/>
        <source>Quick runs the standard probes at small sizes ({probes}); Full runs them at larger sizes. Each figure is set against the catalog&apos;s value for the card and kept in the history below.</source>
        <translation>“快速”以小规模运行标准测试项（{probes}）；“完整”以较大规模运行。每项指标都与该卡的目录值对比，并保存在下方的历史中。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/telemetry_panel.py" line="73"/>
        <source>Live readings</source>
        <translation>实时读数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/telemetry_panel.py" line="101"/>
        <source>Readings appear while a probe runs.</source>
        <translation>实测运行时显示读数。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/pickers.py" line="249"/>
        <source>Looking for Python environments with PyTorch…</source>
        <translation>正在查找装有 PyTorch 的 Python 环境…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/page.py" line="270"/>
        <source>Choose a Python interpreter</source>
        <translation>选择 Python 解释器</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/page.py" line="275"/>
        <source>Checking {python}…</source>
        <translation>正在检查 {python}…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="238"/>
        <source>does not work: {error}</source>
        <extracomment>What a CPU&apos;s name says that tells one model from another nothing: trademark signs, the words &quot;CPU&quot; and &quot;Processor&quot;, the base clock (&quot;@ 2.20GHz&quot;). Where a picker&apos;s text is shortened, what it lost is marked with this.</extracomment>
        <translation>无法使用：{error}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="241"/>
        <source>no PyTorch</source>
        <translation>未安装 PyTorch</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="243"/>
        <source>PyTorch {version}, {accelerators}</source>
        <translation>PyTorch {version}，{accelerators}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="246"/>
        <source>PyTorch {version}, CPU only</source>
        <translation>PyTorch {version}，仅 CPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/pickers.py" line="298"/>
        <source>No Python environment found</source>
        <translation>未找到 Python 环境</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="291"/>
        <source>No device to measure with this Python.</source>
        <translation>此 Python 没有可实测的设备。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="292"/>
        <source>Measures {device} on this machine, with PyTorch {torch}.</source>
        <translation>用 PyTorch {torch} 实测本机的 {device}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="296"/>
        <source>No GPU is visible to PyTorch here, so the CPU is measured.</source>
        <translation>PyTorch 在这里看不到 GPU，因此实测的是 CPU。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="299"/>
        <source>The Rig page shows the demo rig “{spec}”; probes always measure this machine&apos;s real devices.</source>
        <translation>本机页显示的是演示配置“{spec}”；实测始终测量本机的真实设备。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="307"/>
        <source>{python} has no PyTorch. Pick another Python above, or install PyTorch there: {python} -m pip install torch</source>
        <translation>{python} 没有安装 PyTorch。请在上方选择其他 Python，或在该环境中安装 PyTorch：{python} -m pip install torch</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="314"/>
        <source>No Python environment with PyTorch was found, so nothing can be measured yet. Install PyTorch in an environment (python -m pip install torch, or use your training environment), then choose its python with Browse… or press Rescan. gpuadvisor itself never loads PyTorch: the probes run in that environment.</source>
        <translation>未找到装有 PyTorch 的 Python 环境，因此暂时无法实测。请在某个环境中安装 PyTorch（python -m pip install torch，或使用你的训练环境），然后用“浏览…”选择其中的 python，或点击“重新扫描”。gpuadvisor 本身从不加载 PyTorch：实测在那个环境中运行。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/page.py" line="354"/>
        <source>This plan cannot be checked here: {error}</source>
        <translation>此方案无法在这里核验：{error}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/page.py" line="367"/>
        <source>Choose your dataset folder</source>
        <translation>选择数据集文件夹</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/page.py" line="376"/>
        <source>Not a folder: {path}</source>
        <translation>不是文件夹：{path}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="411"/>
        <source>The dataset disk reads {rate} MB/s; the plan needs {need} MB/s ({tokens} tokens/s as 2-byte token ids): the GPU will wait on the disk. Pre-tokenize, cache the data in RAM, or use a faster disk.</source>
        <translation>数据集磁盘读取速度为 {rate} MB/s；规划需要 {need} MB/s（{tokens} token/秒，按每个 token ID 2 字节计）：GPU 将等待磁盘。请预先分词、把数据缓存在内存中，或换用更快的磁盘。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="416"/>
        <source>The dataset disk reads {rate} MB/s; the plan needs {need} MB/s ({tokens} tokens/s as 2-byte token ids): not a bottleneck ({headroom:.0f}x headroom).</source>
        <translation>数据集磁盘读取速度为 {rate} MB/s；规划需要 {need} MB/s（{tokens} token/秒，按每个 token ID 2 字节计）：不是瓶颈（余量 {headroom:.0f} 倍）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="422"/>
        <source>The read was probably served from RAM (page cache): the disk itself may be slower.</source>
        <translation>这次读取可能来自内存（页面缓存）：磁盘本身可能更慢。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/page.py" line="386"/>
        <source>stopped early by you</source>
        <translation>由你提前停止</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/page.py" line="387"/>
        <source>Stopping: the probe ends its current step and reports what it measured…</source>
        <translation>正在停止：实测结束当前步骤并报告已测得的结果…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/run_panel.py" line="71"/>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="324"/>
        <source>quick probes</source>
        <translation>快速实测</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="325"/>
        <source>full probes</source>
        <translation>完整实测</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="326"/>
        <source>burn-in</source>
        <translation>烤机</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="327"/>
        <source>plan check</source>
        <translation>方案核验</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="329"/>
        <source>Running {kind} on {device}…</source>
        <translation>正在 {device} 上运行{kind}…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/run_panel.py" line="88"/>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/run_panel.py" line="93"/>
        <source>{kind}: {message}</source>
        <translation>{kind}：{message}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="337"/>
        <source>Cancelled after {seconds:.1f} s; nothing was saved.</source>
        <translation>运行 {seconds:.1f} 秒后已取消；未保存任何结果。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="340"/>
        <source>Finished in {seconds:.1f} s.</source>
        <translation>用时 {seconds:.1f} 秒完成。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="343"/>
        <source>Ended early: {reason}.</source>
        <translation>提前结束：{reason}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="346"/>
        <source>Finished with problems after {seconds:.1f} s (see below).</source>
        <translation>运行 {seconds:.1f} 秒后结束，但有问题（见下方）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="353"/>
        <source>{probe}: {kind} — {message}</source>
        <translation>{probe}：{kind} — {message}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/run_panel.py" line="107"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/run_panel.py" line="108"/>
        <source>no result</source>
        <translation>无结果</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/page.py" line="444"/>
        <source>The results are shown but could not be saved to the probe history: {error}</source>
        <translation>结果已显示，但无法保存到实测历史：{error}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="376"/>
        <source>Measured on {device} ({name}) with PyTorch {torch}</source>
        <translation>在 {device}（{name}）上用 PyTorch {torch} 实测</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="378"/>
        <source>catalog: {gpu}</source>
        <translation>目录：{gpu}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="380"/>
        <source>no catalog peaks for this device</source>
        <translation>目录中没有此设备的峰值</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="382"/>
        <source>saved to the history</source>
        <translation>已保存到历史</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="389"/>
        <source>Burn-in: {verdict}. Throughput {first} → {last} TFLOPS from the first window to the last ({slowdown:+.1f}%); ended by {why}.</source>
        <translation>烤机：{verdict}。吞吐量从第一个时间窗到最后一个为 {first} → {last} TFLOPS（{slowdown:+.1f}%）；结束原因：{why}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/results.py" line="166"/>
        <source>Plan check: measured vs estimated</source>
        <translation>方案核验：实测与估算对比</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/results.py" line="172"/>
        <source>Could not compare with the estimate: {error}</source>
        <translation>无法与估算对比：{error}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="429"/>
        <source>{model} — {plan}; estimate for {gpu}</source>
        <translation>{model} — {plan}；估算针对 {gpu}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/results.py" line="181"/>
        <source>Figure</source>
        <translation>指标</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/results.py" line="181"/>
        <source>Measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/results.py" line="182"/>
        <source>Estimated</source>
        <translation>估算</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/results.py" line="182"/>
        <source>Difference</source>
        <translation>差异</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="446"/>
        <source>The CPU is being measured: there are no GPU readings to show.</source>
        <translation>正在实测 CPU：没有 GPU 读数可显示。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="448"/>
        <source>No live readings: the GPU being measured was not found among {n} GPU(s) the driver reports.</source>
        <translation>没有实时读数：在驱动报告的 {n} 块 GPU 中找不到正在实测的那块。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="454"/>
        <source>GPU {index}: {name}</source>
        <translation>GPU {index}：{name}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/telemetry_panel.py" line="244"/>
        <source>Temperature, SM clock, power and utilization, each as a % of its limit; hover for the readings.</source>
        <translation>温度、SM 频率、功耗和利用率，各自以占上限的百分比显示；悬停可查看读数。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="79"/>
        <source>median</source>
        <extracomment>Words of the probes&apos; figure names, for people (acronyms and formats stay as they are: bf16, h2d, gemv, pcie).</extracomment>
        <translation>中位数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="80"/>
        <source>pinned</source>
        <translation>锁页</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="81"/>
        <source>pageable</source>
        <translation>可分页</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="82"/>
        <source>copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="83"/>
        <source>read</source>
        <translation>读取</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="84"/>
        <source>triad</source>
        <translation>三元运算</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="85"/>
        <source>achieved</source>
        <translation>实际</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="86"/>
        <source>step</source>
        <translation>训练步</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="87"/>
        <source>decode</source>
        <translation>解码</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="88"/>
        <source>memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="89"/>
        <source>bandwidth</source>
        <translation>带宽</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="90"/>
        <source>tokens</source>
        <translation>token</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="91"/>
        <source>per</source>
        <translation>每</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="92"/>
        <source>peak</source>
        <translation>峰值</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="93"/>
        <source>allocated</source>
        <translation>已分配</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="94"/>
        <source>reserved</source>
        <translation>已保留</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="95"/>
        <source>used</source>
        <translation>已用</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="96"/>
        <source>free</source>
        <translation>空闲</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="97"/>
        <source>total</source>
        <translation>总量</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="98"/>
        <source>max</source>
        <translation>最大</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="361"/>
        <source>{gpu} reached {temp:.0f} °C (limit {limit} °C)</source>
        <translation>{gpu} 达到 {temp:.0f} °C（上限 {limit} °C）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="367"/>
        <source>Temperature limit reached: {reason}; the burn-in was asked to stop…</source>
        <translation>达到温度上限：{reason}；已请求烤机停止…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="465"/>
        <source>up to {temp:.0f} °C</source>
        <translation>最高 {temp:.0f} °C</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="468"/>
        <source>SM clock {low}–{high} MHz</source>
        <translation>SM 频率 {low}–{high} MHz</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="471"/>
        <source>up to {watts:.0f} W</source>
        <translation>最高 {watts:.0f} W</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="473"/>
        <source>clocks held down: {reasons}</source>
        <translation>频率受限：{reasons}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/format.py" line="479"/>
        <source>Live readings during the run ({n}): {readings}.</source>
        <translation>运行期间的实时读数（{n} 次）：{readings}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/telemetry_panel.py" line="227"/>
        <source>Live reading failed: {error}</source>
        <translation>实时读数失败：{error}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/pickers.py" line="271"/>
        <source>Looking for Python environments failed: {error}</source>
        <translation>查找 Python 环境失败：{error}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/telemetry_panel.py" line="200"/>
        <source>No live readings: {error}</source>
        <translation>没有实时读数：{error}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/telemetry_panel.py" line="208"/>
        <source>no GPU sensors were found</source>
        <translation>未找到 GPU 传感器</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/probe/telemetry_panel.py" line="209"/>
        <source>No live readings on this machine: {hint}</source>
        <translation>本机没有实时读数：{hint}</translation>
    </message>
</context>
<context>
    <name>Regions</name>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="18"/>
        <source>global</source>
        <extracomment>Offer regions of the shipped catalog in words (codes such as ``us-east-1`` stay codes).</extracomment>
        <translation>全球</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="19"/>
        <source>global (community hosts)</source>
        <translation>全球（社区主机）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="20"/>
        <source>global (RunPod data centers)</source>
        <translation>全球（RunPod 数据中心）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="21"/>
        <source>global marketplace</source>
        <translation>全球市场</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="22"/>
        <source>US (varies with availability)</source>
        <translation>美国（视供应而定）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="23"/>
        <source>North America</source>
        <translation>北美</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="24"/>
        <source>EU</source>
        <translation>欧盟</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="25"/>
        <source>varies (EU, North America)</source>
        <translation>不定（欧盟、北美）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="26"/>
        <source>decentralized marketplace</source>
        <translation>去中心化市场</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="27"/>
        <source>varies</source>
        <translation>不定</translation>
    </message>
</context>
<context>
    <name>RigFields</name>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="36"/>
        <source>n/a</source>
        <extracomment>``translate(context, text) -&gt; text for people`` (Qt&apos;s ``QCoreApplication.translate``).</extracomment>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="42"/>
        <source>on</source>
        <translation>开</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="43"/>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="64"/>
        <source>{total} total · {free} free · {used} used</source>
        <translation>总计 {total} · 可用 {free} · 已用 {used}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="68"/>
        <source>(unified: shared with the CPU)</source>
        <translation>（统一内存：与 CPU 共享）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="71"/>
        <source>{n} SMs</source>
        <translation>{n} 个 SM</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="73"/>
        <source>{n} GPU cores</source>
        <translation>{n} 个 GPU 核心</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="74"/>
        <source>gen {gen} / {gen_max} · {width} / {width_max}</source>
        <translation>第 {gen} / {gen_max} 代 · {width} / {width_max}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="77"/>
        <source>{n} links active</source>
        <translation>{n} 条链路活动</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="79"/>
        <source>{draw} of {limit} limit (default {default})</source>
        <translation>{draw}，上限 {limit}（默认 {default}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="82"/>
        <source>{now} (slowdown at {limit})</source>
        <translation>{now}（{limit} 时降频）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="84"/>
        <source>{sm} of {sm_max} · {mem} of {mem_max}</source>
        <translation>{sm} / 最高 {sm_max} · {mem} / 最高 {mem_max}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="87"/>
        <source>GPU {gpu} · memory {mem}</source>
        <translation>GPU {gpu} · 显存 {mem}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="89"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="94"/>
        <source>{mode} · uncorrected errors unknown</source>
        <translation>{mode} · 不可纠正错误数未知</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="97"/>
        <source>{mode} · {errors} uncorrected errors</source>
        <translation>{mode} · {errors} 个不可纠正错误</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="100"/>
        <source>{name} (pid {pid}, {used})</source>
        <translation>{name}（pid {pid}，{used}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="104"/>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="109"/>
        <source>VRAM</source>
        <translation>显存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="110"/>
        <source>Driver / CUDA</source>
        <translation>驱动 / CUDA</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="112"/>
        <source>Compute capability</source>
        <translation>计算能力</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="113"/>
        <source>PCIe now / max</source>
        <translation>PCIe 当前 / 最高</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="114"/>
        <source>NVLink</source>
        <translation>NVLink</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="105"/>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="115"/>
        <source>Power</source>
        <translation>功耗</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="106"/>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="116"/>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="117"/>
        <source>SM / memory clock</source>
        <translation>SM / 显存频率</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="107"/>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="118"/>
        <source>Utilization</source>
        <translation>利用率</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="119"/>
        <source>Throttle reasons</source>
        <translation>降频原因</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="120"/>
        <source>ECC</source>
        <translation>ECC</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="121"/>
        <source>MIG</source>
        <translation>MIG</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="122"/>
        <source>Processes</source>
        <translation>进程</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="131"/>
        <source>Unmatched — memory from the driver; no catalog peaks</source>
        <translation>未匹配 — 显存取自驱动；无目录峰值</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="136"/>
        <source>Catalog: {name} ({id}) · peak bf16 {bf16} / fp16 {fp16} / fp8 {fp8} TFLOPS · {bw} GB/s</source>
        <translation>目录：{name}（{id}）· 峰值 bf16 {bf16} / fp16 {fp16} / fp8 {fp8} TFLOPS · {bw} GB/s</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="149"/>
        <source>GPU usable</source>
        <translation>GPU 可用</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="150"/>
        <source>MPS usable</source>
        <translation>MPS 可用</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="152"/>
        <source>CPU only</source>
        <translation>仅 CPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="155"/>
        <source>not usable: {error}</source>
        <translation>不可用：{error}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="156"/>
        <source>not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="158"/>
        <source>not checked: {error}</source>
        <translation>未检查：{error}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="160"/>
        <source>checking…</source>
        <translation>检查中…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="161"/>
        <source>{model} ({cores} cores, {threads} threads)</source>
        <translation>{model}（{cores} 核，{threads} 线程）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="164"/>
        <source>{total} total, {available} available</source>
        <translation>总计 {total}，可用 {available}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="166"/>
        <source>{free} on {path}</source>
        <translation>{path} 上可用 {free}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="168"/>
        <source>{total} total, {free} free</source>
        <translation>总计 {total}，空闲 {free}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="170"/>
        <source>{mount}: {free} free of {total}</source>
        <translation>{mount}：{total} 中可用 {free}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="174"/>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="175"/>
        <source>RAM</source>
        <translation>内存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="176"/>
        <source>Swap</source>
        <translation>交换空间</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="177"/>
        <source>Disk free</source>
        <translation>磁盘可用</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="178"/>
        <source>Disks</source>
        <translation>磁盘</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="179"/>
        <source>OS / Python</source>
        <translation>系统 / Python</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="180"/>
        <source>PyTorch</source>
        <translation>PyTorch</translation>
    </message>
</context>
<context>
    <name>RigPage</name>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/page.py" line="118"/>
        <source>Rig</source>
        <translation>本机</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/demo_picker.py" line="40"/>
        <source>Demo rig:</source>
        <translation>演示配置：</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/demo_picker.py" line="43"/>
        <source>Show a simulated rig instead of this machine (for demos on a laptop without a GPU)</source>
        <translation>显示模拟配置而非本机（用于在没有 GPU 的笔记本上演示）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/demo_picker.py" line="56"/>
        <source>or type a rig, e.g. 2x rtx-3090</source>
        <translation>或输入配置，如 2x rtx-3090</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/demo_picker.py" line="58"/>
        <source>Catalog ids joined by +, each with an optional count: rtx-3090+rtx-3060-12gb, 4x a100-sxm-80gb</source>
        <translation>用 + 连接的目录 ID，每个可带数量：rtx-3090+rtx-3060-12gb、4x a100-sxm-80gb</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/demo_picker.py" line="63"/>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/demo_picker.py" line="64"/>
        <source>Detect again</source>
        <translation>重新检测</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/host_panel.py" line="17"/>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/demo_picker.py" line="73"/>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="218"/>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/demo_picker.py" line="75"/>
        <source>Demo: {name} — {description}</source>
        <translation>演示：{name} — {description}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/demo_picker.py" line="78"/>
        <location filename="../../gpuadvisor/gui/pages/rig/demo_picker.py" line="87"/>
        <source>Demo: {spec}</source>
        <translation>演示：{spec}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/page.py" line="194"/>
        <source>Detecting…</source>
        <translation>正在检测…</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/page.py" line="323"/>
        <source>Cannot show that rig: {error}</source>
        <translation>无法显示该配置：{error}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/page.py" line="325"/>
        <source>Detection failed</source>
        <translation>检测失败</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/page.py" line="346"/>
        <source>Live reading failed: {error}</source>
        <translation>实时读数失败：{error}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="214"/>
        <source>Linux sysfs (AMD/Intel)</source>
        <translation>Linux sysfs（AMD/Intel）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="215"/>
        <source>simulated</source>
        <translation>模拟</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="216"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="217"/>
        <source>Demo rig “{spec}”</source>
        <translation>演示配置“{spec}”</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/format.py" line="219"/>
        <source>{where} · backend: {backend} · {n} GPU(s)</source>
        <translation>{where} · 后端：{backend} · {n} 个 GPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/page.py" line="374"/>
        <source>Hint: {hint}</source>
        <translation>提示：{hint}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/pages/rig/page.py" line="379"/>
        <source>No GPU found. Plans use a catalog GPU; pick a Demo rig above to see what this page shows for one.</source>
        <translation>未找到 GPU。规划将使用目录中的 GPU；在上方选择一个演示配置，看看本页会显示什么。</translation>
    </message>
</context>
<context>
    <name>Sellers</name>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="32"/>
        <source>retail (new)</source>
        <extracomment>Sellers of the catalog that are words rather than names.</extracomment>
        <translation>零售（全新）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="33"/>
        <source>used market</source>
        <translation>二手市场</translation>
    </message>
</context>
<context>
    <name>ServingChart</name>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="35"/>
        <source>Serving curve</source>
        <extracomment>The first token&apos;s curve (a colour no other series of the chart uses).</extracomment>
        <translation>服务负载曲线</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="96"/>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="210"/>
        <source>first token (s)</source>
        <translation>首 token（秒）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="120"/>
        <source>no user gets {rate} tokens/s</source>
        <translation>没有用户能达到 {rate} token/秒</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="127"/>
        <source>1 user</source>
        <translation>1 位用户</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="128"/>
        <source>{n} users</source>
        <translation>{n} 位用户</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="138"/>
        <source>Tokens per second against users at once: {a} in all for 1 user, {b} in all for {n} users ({each} each). {badge}.</source>
        <translation>每秒 token 数随同时用户数的变化：1 位用户时合计 {a}，{n} 位用户时合计 {b}（每人 {each}）。{badge}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="198"/>
        <source>reading speed {rate} tokens/s</source>
        <translation>阅读速度 {rate} token/秒</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="206"/>
        <source>tokens/s in all</source>
        <translation>合计 token/秒</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="207"/>
        <source>tokens/s each</source>
        <translation>每人 token/秒</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="208"/>
        <source>users served</source>
        <translation>可服务的用户</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="288"/>
        <source> (some requests wait: the KV pool is full)</source>
        <translation>（部分请求需排队：KV 池已满）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="299"/>
        <source>requests wait</source>
        <translation>请求需排队</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="300"/>
        <source>requests do not fit</source>
        <translation>请求放不下</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="213"/>
        <source>users at once</source>
        <translation>同时用户数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="124"/>
        <source>{users} at once, {speed} tokens/s each (reading speed: {rate})</source>
        <translation>同时 {users}，每人 {speed} token/秒（阅读速度：{rate}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="214"/>
        <source>tokens/s</source>
        <translation>token/秒</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="282"/>
        <source>{users} users: {total} tokens/s in all, {each} each; first token {ttft} s</source>
        <translation>{users} 位用户：合计 {total} token/秒，每人 {each}；首个 token {ttft} 秒</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/serving.py" line="291"/>
        <source> (their requests do not fit)</source>
        <translation>（这些请求放不下）</translation>
    </message>
</context>
<context>
    <name>SummaryWriter</name>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="23"/>
        <source>micro-batch {mb} × accumulation {ga}</source>
        <translation>微批次 {mb} × 累积 {ga}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="27"/>
        <source>{n} request(s) × {prompt} prompt + {new} new tokens</source>
        <translation>{n} 个请求 × {prompt} 提示 + {new} 新 token</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="30"/>
        <source>micro-batch {mb} × accumulation {ga} × sequence {seq}</source>
        <translation>微批次 {mb} × 累积 {ga} × 序列 {seq}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="32"/>
        <source>{n} GPU(s)</source>
        <translation>{n} 张 GPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="36"/>
        <source>offload: {what}</source>
        <translation>卸载：{what}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="39"/>
        <source>checkpointing: {how}</source>
        <translation>梯度检查点：{how}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="43"/>
        <source>LoRA r={rank} on {targets}</source>
        <translation>LoRA r={rank}，作用于{targets}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="47"/>
        <source>weights {quant}</source>
        <translation>权重 {quant}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="50"/>
        <source>base weights {quant}</source>
        <translation>基座权重 {quant}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="63"/>
        <source>**{need}** per GPU (no GPU chosen)</source>
        <translation>单卡 **{need}**（未选 GPU）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="66"/>
        <source>**{verdict}**: {need} of {have} per GPU ({free} free)</source>
        <translation>**{verdict}**：单卡需 {need}，共 {have}（剩余 {free}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="70"/>
        <source>**Does not fit**: {need} per GPU, {have} available (short by {short})</source>
        <translation>**放不下**：单卡需 {need}，可用 {have}（差 {short}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="73"/>
        <source>Parameters: {total}</source>
        <translation>参数量：{total}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="75"/>
        <source>({n} trainable)</source>
        <translation>（可训练 {n}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="77"/>
        <source>Precision: {precision}</source>
        <translation>精度：{precision}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="80"/>
        <source>optimizer: {optimizer}</source>
        <translation>优化器：{optimizer}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="86"/>
        <source>Plan: {plan}</source>
        <translation>方案：{plan}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="88"/>
        <source>Memory per GPU</source>
        <translation>单卡显存</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="90"/>
        <source>term</source>
        <translation>项</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="90"/>
        <source>size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="98"/>
        <source>total</source>
        <translation>合计</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="101"/>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="103"/>
        <source>total {time} · decode {rate} tokens/s</source>
        <translation>总计 {time} · 解码 {rate} token/s</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="107"/>
        <source>total {time} · {rate} tokens/s · {hours} GPU-hours · {flops}</source>
        <translation>总计 {time} · {rate} token/s · {hours} 卡时 · {flops}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="111"/>
        <source>data: {amount} ({source})</source>
        <translation>数据：{amount}（{source}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="115"/>
        <source>peak {tflops:g} TFLOPS {dtype} ({source}) × efficiency {eff:.2f} ({eff_source})</source>
        <translation>峰值 {tflops:g} TFLOPS {dtype}（{source}）× 效率 {eff:.2f}（{eff_source}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="120"/>
        <source>Make it fit</source>
        <translation>如何放得下</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="123"/>
        <source>Warnings</source>
        <translation>警告</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/summary.py" line="125"/>
        <source>_Estimated with gpuadvisor._</source>
        <translation>_由 gpuadvisor 估算。_</translation>
    </message>
</context>
<context>
    <name>ThrottleReasons</name>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="38"/>
        <source>idle</source>
        <extracomment>NVML&apos;s clock-event (&quot;throttle&quot;) reasons as the hardware package names them.</extracomment>
        <translation>空闲</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="39"/>
        <source>applications clocks setting</source>
        <translation>应用时钟设置</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="40"/>
        <source>power cap</source>
        <translation>功耗上限</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="41"/>
        <source>hardware slowdown</source>
        <translation>硬件降速</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="42"/>
        <source>sync boost</source>
        <translation>同步加速</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="43"/>
        <source>thermal (software)</source>
        <translation>过热（软件）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="44"/>
        <source>thermal (hardware)</source>
        <translation>过热（硬件）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="45"/>
        <source>power brake (hardware)</source>
        <translation>功耗制动（硬件）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="46"/>
        <source>display clock setting</source>
        <translation>显示时钟设置</translation>
    </message>
</context>
<context>
    <name>TimePanel</name>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="125"/>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="150"/>
        <source>Total time</source>
        <translation>总时间</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="151"/>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="321"/>
        <source>GPU-hours</source>
        <translation>卡时</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="152"/>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="153"/>
        <source>Compute</source>
        <translation>计算量</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="163"/>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="282"/>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="175"/>
        <source>Users at once</source>
        <translation>同时服务的用户</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="185"/>
        <source>Layout</source>
        <translation>并行布局</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="201"/>
        <source>Efficiency</source>
        <translation>效率</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="216"/>
        <source>Default</source>
        <translation>默认</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="217"/>
        <source>Use the assumed efficiency again</source>
        <translation>恢复为假设的效率</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="229"/>
        <source>Assumptions</source>
        <translation>假设</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="281"/>
        <source>Phases</source>
        <translation>各阶段</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="290"/>
        <source>{rate} generated tokens/s overall, {decode} while decoding ({held} requests at once)</source>
        <translation>全程生成 {rate} token/秒，解码时 {decode}（同时 {held} 个请求）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="295"/>
        <source>{rate} generated tokens/s overall, {decode} while decoding</source>
        <translation>全程生成 {rate} token/秒，解码时 {decode}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="301"/>
        <source>{rate} samples/s</source>
        <translation>{rate} 样本/秒</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="302"/>
        <source>{rate} tokens/s</source>
        <translation>{rate} token/秒</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="308"/>
        <source>{steps} × {step} ÷ {goodput} goodput = {total} (bound by {bound})</source>
        <translation>{steps} × {step} ÷ {goodput} 有效训练时间比例 = {total}（受限于{bound}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="311"/>
        <source>{steps} × {step} = {total} (bound by {bound})</source>
        <translation>{steps} × {step} = {total}（受限于{bound}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="357"/>
        <source>Every user waiting for an answer at once, each with the plan&apos;s prompt and new tokens; each keeps at least {rate} tokens/s (reading speed unless set). gpuadvisor estimate prints the whole curve.</source>
        <translation>所有用户同时等待回答，每人使用方案的提示词和新生成 token 数；每人至少保持 {rate} token/秒（未设置时为阅读速度）。gpuadvisor estimate 会打印整条曲线。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="374"/>
        <source>{parts}, {zero}, {batch}</source>
        <translation>{parts}，{zero}，{batch}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="406"/>
        <source>{eff:.2f} → {tflops} TFLOPS per GPU</source>
        <translation>{eff:.2f} → 每张 GPU {tflops} TFLOPS</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="411"/>
        <source>matmul kernel</source>
        <translation>矩阵乘内核</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="412"/>
        <source>{kernel}: {tflops} TFLOPS per GPU, {fraction} of the {peak} rate</source>
        <translation>{kernel}：单卡 {tflops} TFLOPS，为 {peak} 峰值的 {fraction}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="420"/>
        <source>in-situ factor</source>
        <translation>现场系数</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="421"/>
        <source>{k:.2f} of the published kernel rates</source>
        <translation>公开内核速率的 {k:.2f}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="425"/>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="430"/>
        <source>{n} samples</source>
        <translation>{n} 个样本</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="426"/>
        <source>{n} tokens</source>
        <translation>{n} 个 token</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/job_text.py" line="82"/>
        <source>No user at {context} tokens of context gets {rate} tokens/s</source>
        <translation>在 {context} token 的上下文下，没有用户能达到 {rate} token/秒</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/job_text.py" line="85"/>
        <source>{users} at {context} tokens of context: first token in {ttft} s, {rate} tokens/s each ({total} in all)</source>
        <translation>{users}，上下文 {context} token：首个 token {ttft} 秒，每人 {rate} token/秒（合计 {total}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/job_text.py" line="88"/>
        <source>1 user</source>
        <translation>1 位用户</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/job_text.py" line="89"/>
        <source>{n} users</source>
        <translation>{n} 位用户</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/job_text.py" line="93"/>
        <source> with {setting}</source>
        <translation>，需 {setting}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/job_text.py" line="96"/>
        <source>; the first token takes over {limit} s</source>
        <translation>；首个 token 超过 {limit} 秒</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/job_text.py" line="31"/>
        <source>Assumed: {samples} samples (the size of Alpaca) × {epochs} epoch(s); type your own under Data set.</source>
        <translation>假设：{samples} 个样本（Alpaca 的规模）× {epochs} 轮；可在“数据集”中填写你自己的。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/job_text.py" line="39"/>
        <source>Assumed: {per} tokens per parameter (compute-optimal, Chinchilla), {tokens} tokens; type your own under Data set.</source>
        <translation>假设：每个参数 {per} 个 token（算力最优，Chinchilla），共 {tokens} 个 token；可在“数据集”中填写你自己的。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/job_text.py" line="44"/>
        <source>{name}: {tokens} tokens.</source>
        <translation>{name}：{tokens} 个 token。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/job_text.py" line="47"/>
        <source>{name}: {samples} samples × {per} tokens = {tokens} tokens</source>
        <translation>{name}：{samples} 个样本 × {per} 个 token = {tokens} 个 token</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/job_text.py" line="52"/>
        <source>Assumed: {job}</source>
        <translation>假设：{job}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/job_text.py" line="56"/>
        <source>packed into {seq}-token sequences: no length distribution is published to pad by</source>
        <translation>打包成 {seq} token 的序列：未公布长度分布，无法按批次补齐</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/job_text.py" line="60"/>
        <source>packed into {seq}-token sequences</source>
        <translation>打包成 {seq} token 的序列</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/job_text.py" line="63"/>
        <source>each micro-batch of {b} padded to its longest sample</source>
        <translation>每个微批次（{b} 个样本）补齐到其中最长的样本</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/job_text.py" line="65"/>
        <source>{name}: {samples} samples × {per} tokens ({how}) × {epochs} epoch(s) = {tokens} tokens, counted with the {tokenizer} tokenizer.</source>
        <translation>{name}：{samples} 个样本 × {per} 个 token（{how}）× {epochs} 轮 = {tokens} 个 token，按 {tokenizer} 分词器计数。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/job_text.py" line="72"/>
        <source>Assumed: {job} Pick another under Data set, or type your own.</source>
        <translation>假设：{job}可在“数据集”中选择其他数据集，或填写你自己的。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="191"/>
        <source>How the job is split over the GPUs: the fastest way found that fits their memory (chosen), or the degrees you pinned in the Layout row with the rest searched (pinned): tensor (TP), pipeline (PP) and data parallel (DP) degrees, ZeRO/FSDP sharding and the micro-batch. The step is shown in parts: computing, memory-bound kernels, communication left over after overlap, and the pipeline&apos;s idle bubble.</source>
        <translation>任务如何切分到各块 GPU 上：放得下显存的最快方式（选出），或你在“布局”一行固定的并行度，其余仍会搜索（固定）：张量并行（TP）、流水线并行（PP）和数据并行（DP）的并行度、ZeRO/FSDP 切分以及微批次。一步按组成部分显示：计算、受访存限制的内核、重叠之后仍暴露的通信，以及流水线的空闲气泡。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="209"/>
        <source>Share of the GPU&apos;s dense peak that training achieves (model FLOPs utilisation). By default it comes from the plan&apos;s own kernels at the card&apos;s published rates times the in-situ factor (0.73); type a value to use your own.</source>
        <translation>训练达到的 GPU 稠密峰值比例（模型 FLOPs 利用率）。默认值来自方案自身的内核：按显卡公开的内核速率乘以现场系数（0.73）；输入一个数值即可使用你自己的值。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="298"/>
        <source>prefill {prefill} · decode bound by {bound}</source>
        <translation>预填充 {prefill} · 解码受限于{bound}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="318"/>
        <source>GPU time</source>
        <translation>GPU 时间</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="371"/>
        <source>no data parallel</source>
        <translation>无数据并行</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="373"/>
        <source>{zero} sharded within a node</source>
        <translation>{zero}（仅在节点内分片）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="376"/>
        <source>micro-batch {mb} × {ga}</source>
        <translation>微批次 {mb} × {ga}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="383"/>
        <source>step {step} = compute {compute} + memory-bound {memory} + communication {comm} + bubble {bubble}; MFU {mfu:.0%}</source>
        <translation>每步 {step} = 计算 {compute} + 访存受限 {memory} + 通信 {comm} + 流水线气泡 {bubble}；MFU {mfu:.0%}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="389"/>
        <source>runner-up: {layout}: step {step}</source>
        <translation>次优：{layout}：每步 {step}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="399"/>
        <source>peak</source>
        <translation>峰值</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="400"/>
        <source>{tflops:g} TFLOPS {dtype} on {gpu}</source>
        <translation>{tflops:g} TFLOPS {dtype}（{gpu}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="405"/>
        <source>efficiency</source>
        <translation>效率</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="431"/>
        <source>data</source>
        <translation>数据</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="433"/>
        <source>GPU link</source>
        <translation>GPU 互联</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="436"/>
        <source>overlap</source>
        <translation>通信重叠</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="439"/>
        <source>bandwidth</source>
        <translation>显存带宽</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="442"/>
        <source>timed on</source>
        <translation>计时 GPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="444"/>
        <source>CUDA context</source>
        <translation>CUDA 上下文</translation>
    </message>
</context>
<context>
    <name>VerdictBanner</name>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="70"/>
        <source>{need} per GPU · choose a GPU to check the fit</source>
        <translation>单卡需 {need} · 选择 GPU 以检查能否放下</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="79"/>
        <source>Does not fit: needs {need} per GPU, {gpu} has {have} (short by {free})</source>
        <translation>放不下：单卡需 {need}，{gpu} 只有 {have}（差 {free}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="86"/>
        <source>Fits, but requests wait: the KV pool holds {held} of {asked} at once ({need} of {have} on {gpu})</source>
        <translation>放得下，但请求需排队：{asked} 个请求中 KV 池一次只容纳 {held} 个（需 {need}，{gpu} 有 {have}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="91"/>
        <source>Fits, but tight: {need} of {have} on {gpu} ({free} free)</source>
        <translation>放得下，但偏紧：需 {need}，{gpu} 有 {have}（剩余 {free}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="95"/>
        <source>Fits: {need} of {have} on {gpu} ({free} free)</source>
        <translation>放得下：需 {need}，{gpu} 有 {have}（剩余 {free}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/widgets/panels.py" line="98"/>
        <source>{model}, {task}: {verdict}</source>
        <translation>{model}，{task} — {verdict}</translation>
    </message>
</context>
<context>
    <name>VramBreakdownChart</name>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="72"/>
        <source>Memory per GPU by term</source>
        <extracomment>Common card sizes drawn as dashed references. GPU makers&apos; &quot;GB&quot; on memory is binary (a &quot;24 GB&quot; RTX 4090 has 24 GiB), so the lines sit at these many GiB in either unit. Headroom above the tallest thing, as a fraction of it, until the view has a size (then the headroom is computed in pixels to clear the verdict badge). Reference lines closer than this share of the y span to a shown line are hidden (until the view has a size; then a label&apos;s height in pixels decides), so labels never overlap.</extracomment>
        <translation>单卡显存分项</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="158"/>
        <source>plan</source>
        <translation>方案</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="159"/>
        <source>option {n}</source>
        <translation>选项 {n}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="222"/>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="263"/>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="492"/>
        <source>target GPU</source>
        <translation>目标 GPU</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="238"/>
        <source>memory per GPU ({unit})</source>
        <translation>单卡显存（{unit}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="241"/>
        <source>memory ({unit})</source>
        <translation>显存（{unit}）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="257"/>
        <source>Memory per GPU: {total} in all ({parts}).</source>
        <translation>单卡显存：共 {total}（{parts}）。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="261"/>
        <source>{gpu} has {size}: {verdict}.</source>
        <translation>{gpu} 有 {size}：{verdict}。</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="420"/>
        <source>{size} cards</source>
        <translation>{size} 显卡</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="433"/>
        <source>needs {total} per GPU</source>
        <translation>单卡需 {total}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="442"/>
        <source>fits — {free} free</source>
        <translation>放得下 — 剩余 {free}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="446"/>
        <source>tight — {free} free</source>
        <translation>偏紧 — 剩余 {free}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="450"/>
        <source>does not fit by {over}</source>
        <translation>放不下，差 {over}</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="480"/>
        <source>{term}: {size} ({share:.1f}%)</source>
        <translation>{term}：{size}（{share:.1f}%）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/charts/vram_bar.py" line="495"/>
        <source>{gpu}: {size}</source>
        <translation>{gpu}：{size}</translation>
    </message>
</context>
<context>
    <name>WarningTexts</name>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="222"/>
        <source>{a}: {b} of {c} layers in host RAM, read at {d} GB/s each token</source>
        <extracomment>The engines&apos; most frequent warnings (core/engines/llamacpp.py), as patterns of their English text: with llama.cpp&apos;s --fit and Ollama placing layers themselves, &quot;N of M layers in host RAM&quot; shows on every plan too big for its card.</extracomment>
        <translation>{a}：{c} 层中有 {b} 层在主机内存中，每个 token 以 {d} GB/s 读取</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="226"/>
        <source>{a} has no fp8 matrix units: timed at its 16-bit rate</source>
        <translation>{a} 没有 fp8 矩阵单元：按其 16 位速率计时</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="229"/>
        <source>{a} has no bf16 matrix units: bf16 runs emulated at about its fp32 rate; use fp16 mixed precision on this card</source>
        <translation>{a} 没有 bf16 矩阵单元：bf16 以模拟方式运行，约为其 fp32 速率；请在此卡上使用 fp16 混合精度</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="233"/>
        <source>{a} is a single-chip system: several GPUs are hypothetical</source>
        <translation>{a} 是单芯片系统：多 GPU 仅为假设</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="237"/>
        <source>{a} tokens per sequence exceed {b}&apos;s context of {c}: its position table has {c} entries, so it cannot run longer sequences</source>
        <translation>每个序列 {a} 个 token，超过 {b} 的上下文 {c}：其位置表只有 {c} 项，无法运行更长的序列</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="242"/>
        <source>{a} tokens per sequence exceed {b}&apos;s context of {c}: it was not trained for longer sequences (quality may drop)</source>
        <translation>每个序列 {a} 个 token，超过 {b} 的上下文 {c}：模型未针对更长序列训练（质量可能下降）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="246"/>
        <source>no published activation size for {a}: activations not counted</source>
        <translation>{a} 没有公开的激活大小：未计入激活</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="252"/>
        <source>vLLM would not start: its KV pool holds {a} tokens, one sequence of max_model_len {b} needs more (lower --max-model-len, raise --gpu-memory-utilization, use fp8 KV)</source>
        <translation>vLLM 无法启动：其 KV 池可容纳 {a} 个 token，而一个 max_model_len {b} 的序列需要更多（降低 --max-model-len、提高 --gpu-memory-utilization 或使用 fp8 KV）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="258"/>
        <source>vLLM&apos;s KV pool holds {a} full sequences of {b} tokens at once, fewer than max_num_seqs {c}: the rest wait</source>
        <translation>vLLM 的 KV 池可同时容纳 {a} 个 {b} token 的完整序列，少于 max_num_seqs {c}：其余请求需等待</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="264"/>
        <source>vLLM: gpu_memory_utilization {a} leaves {b} GiB beside its budget, less than the CUDA context and graphs need ({c} GiB): it may run out of memory capturing graphs (lower it, or --enforce-eager)</source>
        <translation>vLLM：gpu_memory_utilization {a} 在其预算之外只留下 {b} GiB，少于 CUDA 上下文和图所需（{c} GiB）：捕获图时可能显存不足（调低它，或使用 --enforce-eager）</translation>
    </message>
    <message>
        <location filename="../../gpuadvisor/gui/data_words.py" line="270"/>
        <source>ollama: num_ctx {a} holds fewer tokens than the plan&apos;s {b} (prompt and new tokens): Ollama cuts the prompt to fit; raise num_ctx</source>
        <translation>ollama：num_ctx {a} 容纳的 token 少于计划的 {b}（提示词和新 token）：Ollama 会截断提示词；请提高 num_ctx</translation>
    </message>
</context>
</TS>
