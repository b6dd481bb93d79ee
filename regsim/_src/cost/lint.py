"""The lint's rules: what the public pages say the 950 compiler refuses, or turns into slower code, in a vector
function. Each rule names the page it comes from; what no page says is no rule.

Rules (ids as `Finding.rule` gives them):

- `vf-control`: a `while`, `do-while` or `switch` in a VF ("VF循环优化": VF code supports only for loops and
  conditions, not switch, do-while or while-do).
- `loop-depth`: loops nested more than four deep ("VF循环优化", "关键特性说明" 硬件循环: at most four levels).
- `loop-form`: a loop that does not start at 0 or does not step by 1 ("VF循环优化", Hardware Loop编码规范: it is
  made a Software Loop).
- `loop-var-type`: a C++ loop variable not of type uint16_t (the same page: every VF loop's iteration variable).
- `loop-branch`: an `if`/`else` or a conditional expression (`?:`, `a if c else b`) inside a loop (the same page:
  it hinders the Hardware Loop; use `if constexpr`, or a `for` of 0 or 1 iterations).
- `loop-bound`: a loop whose bound is assigned inside the loop (the same page: once running, the loop's count
  and bound must not change).
- `loop-member`: a member of a struct or object read inside a loop ("VF循环优化", 循环内成员变量访问优化: it is a
  copy from the stack and defeats VF fusion; read it into a local before the loop).
- `loop-invariant`: a Reg computation in a loop that reads nothing the loop changes ("VF循环优化",
  循环内指令分布优化: it runs every iteration; move it before the loop).
- `vf-reference-param`: a `__simd_vf__` parameter passed by reference ("SIMD-BuiltIn关键字", __simd_vf__: 不支持
  引用传参).
- `register-pressure`: more registers of a file live at once than the 950 has ("Reg矢量计算编程", 指令双发: the
  compiler then spills and reloads them, with synchronisation; the file sizes are "NPU架构版本3510"'s).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import attrs

from regsim._src.cost.registers import pressure
from regsim._src.cost.table import CostTable
from regsim._src.cost.vfcode import Node, VfCode, nodes_in

#: the pages the rules cite, by rule
PAGES = {
    "vf-control": "VF循环优化 (SIMD算子性能优化 > 矢量计算 > VF性能优化)",
    "loop-depth": "VF循环优化; 关键特性说明 (Reg矢量计算) > 硬件循环（HardwareLoop）",
    "loop-form": "VF循环优化 > Hardware Loop编码规范",
    "loop-var-type": "VF循环优化 > Hardware Loop编码规范",
    "loop-branch": "VF循环优化 > Hardware Loop编码规范",
    "loop-bound": "VF循环优化 > Hardware Loop编码规范",
    "loop-member": "VF循环优化 > 循环内成员变量访问优化",
    "loop-invariant": "VF循环优化 > 循环内指令分布优化",
    "vf-reference-param": "SIMD-BuiltIn关键字 > __simd_vf__",
    "register-pressure": "Reg矢量计算编程 (基于指针的C语言编程) > 指令双发; NPU架构版本3510 > 各寄存器的参数规格",
}
MAX_LOOP_DEPTH = 4  #: "VF循环优化": VF函数中可以包含最多四层嵌套循环
_Make = Callable[[str, int, str], "Finding"]


@attrs.frozen
class Finding:
    """One thing the lint found: the rule, where, what, and the page that says so."""

    rule: str
    file: str
    line: int
    message: str
    page: str

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def __str__(self) -> str:
        return f"{self.where}: [{self.rule}] {self.message} (page: {self.page})"


def lint_code(code: VfCode, table: CostTable | None = None) -> list[Finding]:
    """The findings of one VF's code, in line order."""
    found = list(_rules(code, table))
    return sorted(dict.fromkeys(found), key=lambda f: (f.line, f.rule))


def _rules(code: VfCode, table: CostTable | None) -> Iterator[Finding]:
    def finding(rule: str, line: int, text: str) -> Finding:
        return Finding(rule, code.file, line, f"{code.name}: {text}", PAGES[rule])

    for name, ctype in code.params if code.entry else ():
        if ctype.rstrip().endswith("&"):
            yield finding("vf-reference-param", code.line, f"parameter `{ctype} {name}` is passed by reference; pass it by value")
    for n, loops in code.walk():
        if n.what in ("while", "do", "switch"):
            yield finding("vf-control", n.line, f"a {n.what} statement: write it as a for loop or an if")
        if n.what in ("for", "while", "do") and len(loops) == MAX_LOOP_DEPTH:
            yield finding("loop-depth", n.line, f"a loop nested {len(loops) + 1} deep (at most {MAX_LOOP_DEPTH})")
        if n.what == "for":
            yield from _loop_form(n, finding)
        if not loops:
            continue
        inner = loops[-1]
        if n.what == "if" and not any(w == "constexpr" for w, _ in n.notes):
            yield finding(
                "loop-branch",
                n.line,
                f"an if inside the loop at line {inner.line}: a Software Loop; use if constexpr, or a for of 0 or 1 iterations",
            )
        for what, line in n.notes:
            if what == "ternary":
                yield finding("loop-branch", line, f"a conditional expression inside the loop at line {inner.line}")
            elif what.startswith("member "):
                text = f"{what[7:]} read inside the loop at line {inner.line}: copy it to a local before the loop"
                yield finding("loop-member", line, text)
        yield from _invariant(n, inner, finding)
    for peak in pressure(code, table).over:
        yield finding(
            "register-pressure",
            int(peak.lines[0].rsplit(":", 1)[1]),
            f"{peak.peak} {peak.kind} live at once (the 950 has {peak.limit}) at {', '.join(peak.lines)}: {', '.join(peak.live)}",
        )


def _loop_form(n: Node, finding: _Make) -> Iterator[Finding]:
    if n.start != 0 or n.step != 1:
        start = "?" if n.start is None else n.start
        step = "?" if n.step is None else n.step
        text = f"the loop over {n.var} starts at {start} and steps by {step}: a Software Loop (start 0, step 1)"
        yield finding("loop-form", n.line, text)
    if n.var_type and n.var_type not in ("uint16_t", "unsigned short"):
        yield finding("loop-var-type", n.line, f"the loop variable {n.var} is {n.var_type}, not uint16_t")
    changed = n.bound & set().union(*(m.writes for m in nodes_in(n.body))) if n.body else set()
    if changed:
        yield finding("loop-bound", n.line, f"the loop's bound ({', '.join(sorted(changed))}) is assigned inside the loop")


def _invariant(n: Node, loop: Node, finding: _Make) -> Iterator[Finding]:
    """A pure Reg call of `n` reading nothing `loop` changes, whose outputs no other call of the loop writes."""
    if n.what != "stmt":
        return
    body = list(nodes_in(loop.body))
    changed = {loop.var}.union(*(m.writes for m in body))
    for c in n.calls:
        if not c.pure or not c.writes or c.reads & changed:
            continue
        others = [d for m in body for d in m.calls if d is not c and d.writes & c.writes]
        if not others:
            yield finding(
                "loop-invariant",
                c.line,
                f"{c.api} reads nothing the loop at line {loop.line} changes: it runs every iteration; move it before the loop",
            )
