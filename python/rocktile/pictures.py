"""Pictures of what the compiler chose, as SVG text (no dependencies beyond
rocktile): which lane uses which LDS bank when a tile goes through LDS, and
the software pipeline of a loop as stages x iterations.

    from rocktile import pictures
    k = rocktile.compile(...)
    from_type, to_type = pictures.lds_exchanges(k.asm["tile"])[0]
    open("banks.svg", "w").write(pictures.lds_bank_svg(from_type, to_type, "gfx950"))
    open("pipeline.svg", "w").write(pictures.pipeline_svg(pictures.copy_schedule(k.asm["tile"])))
"""
import re
from collections import namedtuple
from html import escape

from . import _C

CopySchedule = namedtuple("CopySchedule", "slots prologue distance waits")
CopySchedule.__doc__ = """A pipelined loop's copies into LDS: slots per operand, the
iterations the prologue copies, how many iterations ahead the loop copies,
and the counts of copies its waits leave in flight (largest first)."""


def _resolve_aliases(tile_ir, text):
    aliases = dict(re.findall(r"^(#\w+) = (.*)$", tile_ir, re.M))
    return re.sub(r"#\w+", lambda m: aliases.get(m.group(0), m.group(0)), text)


def lds_exchanges(tile_ir):
    """The (from, to) tensor types of each layout conversion in `tile_ir`
    (a CompiledKernel's asm["tile"]) that goes through LDS, layouts spelled
    out."""
    found = re.findall(r"tile\.convert_layout [^\n]*\{[^\n]*tile\.lds_offset[^\n]*\} : (tensor<.*?>) -> (tensor<.*>)$",
                       tile_ir, re.M)
    return [(_resolve_aliases(tile_ir, a), _resolve_aliases(tile_ir, b)) for a, b in found]


def lds_bank_map(from_type, to_type, target, row_major=False):
    """rocktile-lds-map's numbers for an exchange from `from_type` to
    `to_type` on `target`: {"lds": the arrangement, "write"/"read":
    {access_bytes, conflict_cycles, lanes_per_phase, lanes[phase][bank]}}."""
    context = _C.Context()
    return _C.lds_exchange_map(context.parse_type(from_type), context.parse_type(to_type), target, row_major)


def copy_schedule(tile_ir):
    """The CopySchedule of the pipelined loop in `tile_ir`, read from its
    copies (tile.async_copy: block copies; tile.async_load: copies through
    pointers) and waits."""
    slots = int(re.search(r"tile.local_alloc[^\n]*memref<(\d+)x", tile_ir).group(1))
    prologue, loop = tile_ir.split("scf.for", 1)
    operands = tile_ir.count("tile.local_alloc")
    copy = "tile.async_copy" if "tile.async_copy" in tile_ir else "tile.async_load"
    ahead = re.findall(r"(%\w+) = arith.addi %arg\w+, %c(\d+)_i32", loop.split(copy)[0])
    distance = max(int(k) for _, k in ahead)
    waits = sorted({int(w) for w in re.findall(r"tile.async_wait \{outstanding = (\d+)", loop)}, reverse=True)
    return CopySchedule(slots, prologue.count(copy) // operands, distance, waits)


def copy_cells(schedule, trips):
    """Rows (name, cells) of the schedule over `trips` iterations: in the
    column of each K tile, what the prologue or an iteration does with it."""
    rows = [("prologue", [f"copy->s{t % schedule.slots}" if t < schedule.prologue else "" for t in range(trips)])]
    for i in range(trips):
        rows.append((f"iteration {i}", [
            f"wait,read s{t % schedule.slots}" if t == i else
            f"copy->s{t % schedule.slots}" if t == i + schedule.distance else
            "in flight" if i < t < i + schedule.distance else "" for t in range(trips)]))
    return rows


def _svg(width, height, body):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="monospace" font-size="10">\n<rect width="100%" height="100%" fill="white"/>\n'
            + "\n".join(body) + "\n</svg>\n")


def _text(x, y, text, size=10, anchor="start", weight="normal"):
    return (f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}">'
            f'{escape(str(text))}</text>')


def pipeline_svg(schedule, trips=6, title="software pipeline"):
    """The schedule as a grid: a column per K tile, a row for the prologue
    and each iteration; copies into a slot, copies in flight, and the wait
    and read of the tile each iteration consumes."""
    colors = {"copy": "#6fa8dc", "in flight": "#d9e7f5", "wait": "#93c47d"}
    cell_w, cell_h, left, top = 96, 24, 88, 44
    body = [_text(4, 16, title, 12, weight="bold"),
            _text(4, 32, f"{schedule.slots} LDS slots per operand; iteration i copies tile i + {schedule.distance}; "
                  f"waits leave {' or '.join(map(str, schedule.waits))} copies in flight")]
    for t in range(trips):
        body.append(_text(left + t * cell_w + cell_w / 2, top + 14, f"tile {t}", anchor="middle"))
    for r, (name, cells) in enumerate(copy_cells(schedule, trips)):
        y = top + (r + 1) * cell_h
        body.append(_text(4, y + 16, name))
        for t, cell in enumerate(cells):
            if cell:
                fill = next(c for k, c in colors.items() if cell.startswith(k))
                body.append(f'<rect x="{left + t * cell_w + 1}" y="{y + 1}" width="{cell_w - 2}" '
                            f'height="{cell_h - 2}" fill="{fill}"/>')
                body.append(_text(left + t * cell_w + cell_w / 2, y + 16, cell, anchor="middle"))
    rows = trips + 1
    return _svg(left + trips * cell_w + 8, top + (rows + 1) * cell_h + 8, body)


def lds_bank_svg(from_type, to_type, target, title="LDS exchange"):
    """Each phase of the first write and the first read of an exchange as a
    row of the target's banks, each bank showing the lane that uses it (a
    hue per lane within the phase); a bank asked for by several lanes in one
    phase (a conflict) is red, with the count."""
    banks_map = lds_bank_map(from_type, to_type, target)
    sides = [("write", banks_map["write"]),
             ("read (transpose reads)" if banks_map["transposed_read"] else "read", banks_map["read"])]
    banks = len(banks_map["write"]["lanes"][0])
    cell, left = 15, 64
    body = [_text(4, 16, title, 12, weight="bold"), _text(4, 32, f"{target}: {banks_map['lds']}")]
    y = 48
    for name, side in sides:
        body.append(_text(4, y + 12, f"{name}: {side['access_bytes']}-byte accesses, "
                          f"{side['conflict_cycles']} conflict cycles; a row per phase, a column per bank", 11))
        y += 18
        for b in range(0, banks, 8):
            body.append(_text(left + b * cell + cell / 2, y + 10, b, 8, "middle"))
        y += 14
        for phase, by_bank in enumerate(side["lanes"]):
            body.append(_text(4, y + 11, f"phase {phase}", 9))
            for bank, lanes in enumerate(by_bank):
                x = left + bank * cell
                if not lanes:
                    fill, label = "#eeeeee", ""
                elif len(lanes) > 1:
                    fill, label = "#e06666", f"{len(lanes)}x"
                else:
                    hue = (lanes[0] % side["lanes_per_phase"]) * 360 // side["lanes_per_phase"]
                    fill, label = f"hsl({hue},60%,78%)", lanes[0]
                body.append(f'<rect x="{x}" y="{y}" width="{cell - 1}" height="{cell - 1}" fill="{fill}"/>')
                if label != "":
                    body.append(_text(x + (cell - 1) / 2, y + 10, label, 7, "middle"))
            y += cell
        y += 12
    return _svg(left + banks * cell + 8, y + 4, body)
