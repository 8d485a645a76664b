"""Frames at past positions of an hwtrec replay, after GDB's btrace unwinder.

Before the end of the history the server knows only the PC; the registers a
DWARF unwinder needs are unavailable.  Like record-btrace's replay unwinder
(record-btrace.c), this unwinder builds every frame from the function
segments: frame 0 is the segment at the position, callers follow `up`, only
the PC unwinds (the server computes each caller's resume address from the
call site, qHwtr:frames), and other registers come out unavailable.

Frame ids must stay equal for the same activation across stops, because
`next`, `step`, `finish` and `reverse-finish` compare them.  btrace uses an
"unavailable stack" id, which Python cannot build, so the stack address is
chosen to look like the real one:

- At the end of the history the core's registers are real and GDB's DWARF
  unwinder runs (this unwinder declines).  On that stop we note the real frame
  id (CFA, function) of each frame of the final call stack; they are paired
  with the server's frames at the end when a past position first needs them
  (so that the first prompt does not wait for the history).
- At a past position, a frame whose callers all match the final stack
  (function by call level) is still, or again, that real activation's frame
  and gets its real CFA; so stepping from the end into the past compares
  equal ids, as btrace ensures when it starts replaying.
- Without a data log, a frame gone from the final stack whose callers all
  have the program's CFAs gets its own where it is known: from its
  caller's and the CFI's rule at the call when that is rsp plus a constant
  ("call_cfa_offset" in qHwtr:frames: what GDB's own unwinder computes, and
  the same for every activation called from there), else where value
  recovery proves rsp just before the call that entered it ("activation",
  "cfa").  GDB then reads its locals and arguments in the program's stack,
  where the server answers what is known at the position.  A recovered one
  is kept by the activation until the next stop for the user
  (_recovered_cfa), so that ids stay equal within a command.  Where one
  activation's CFA is known and a sibling's (called later from the same
  place) is not, their ids differ where GDB's would be equal: a `next`
  over a call that never returns (an exception GDB does not catch) then
  does not stop at the sibling's return as GDB does on the live process.
- Other frames get a synthetic stack address below every real CFA, lower
  with each call level, so that callers are always outer (GDB rejects an
  inner caller) and an activation keeps its id.  Frames beyond the known
  stack on the outer side (those past main) get addresses above it.
  GDB takes a frame's id as its CFA (DW_OP_call_frame_cfa) and reads its
  locals there, so synthetic addresses must never hold memory: the inner
  ones lie below 64 KiB, where the server never answers a read before the
  end of the history (a program may map low memory where the kernel's
  vm.mmap_min_addr allows it), the outer ones at 2^56 and above, which no
  x86-64 or AArch64 user address reaches.  (They used to lie 1 MB below
  the lowest real CFA, on the stack, where a deep frame of earlier may
  have left bytes that GDB then showed as a local's value.)
- A caller's rbx, rbp and r12-r15 are the values the server proved just
  before its call (qHwtr:frames "preserved"): the callee preserves them
  (the System V ABI), so they are what GDB's DWARF unwinder reads from the
  callee's saves.  Its call-clobbered general registers and flags are
  its callee's where those are known (GDB's DWARF unwinder, and so record
  full, gives a caller the registers its CFI has no rule for as "same
  value"; a local of an -O2 caller lives in them); an unknown one is left
  unsaved (`<optimized out>`), as a Python unwinder of GDB 13 cannot give
  an unavailable register (GDB then drops the unwinder for the frame).
  Other registers of a caller are not given.
- A caller's stack pointer (`up`, `p $sp`) is the program's or not given
  (`<not saved>`), never a synthetic address: the server names it where
  value recovery proves rsp at the caller's call (qHwtr:frames "sp"), and
  a frame of the final stack gives its real CFA.  A synthetic one is given
  only where GDB's own unwinders need a number and no user sees it (see
  _caller_sp).
- The outermost frame has no caller.  Unwinding it to PC 0 would make GDB
  show one more frame, `0x0000000000000000 in ?? ()`; GDB on the live
  process ends the stack there because the function's CFI says so, which a
  Python unwinder cannot express.  So where the outermost frame is the one
  at which GDB's own unwinders ended the stack at the end of the history
  (the same PC: that activation never returns), or one whose CFI the
  server read that way (qHwtr:frames "outermost": a thread that ended
  before the end of the history), this unwinder declines it and GDB's
  DWARF unwinder ends the stack as on the live process (only the PC and
  stack pointer matter to it there).
- A signal handler's caller is GDB's <signal handler called> frame, a
  SIGTRAMP_FRAME that only GDB's own unwinders make (from the trampoline's
  CFI, reading the signal frame on the stack).  The server names the
  trampoline and the interrupted PC (qHwtr:frames, "sigtramp"); this
  unwinder gives the handler's frame a stack pointer at 2^57 and above,
  which encodes the signal frame and the trampoline frame's synthetic CFA,
  declines the trampoline's frame, and the server answers GDB's reads of
  the signal frame there with the interrupted PC and that CFA alone
  (gdb-plugin/server/signal-frames.c).  Where frame 0 stands in the
  trampoline (after the handler returned) it is a normal frame of ours with
  that same CFA, so that `finish` out of the handler stops there.
- When the history starts below the bottom of the stack (`record hwt` at a
  breakpoint three calls below main), the callers of its outermost function
  never appear in it, and the server does not know them.  The history never
  returned to them, so they are the same activations at every position: the
  frames GDB unwinds at the end beyond the server's outermost one; they are
  appended, with their real PCs and frame ids, below the server's frames.
"""

import re

import gdb
from gdb.unwinder import Unwinder, register_unwinder

from . import end_registers
from . import target

LEVEL_STEP = 0x100          # synthetic bytes per call level, outer side
INNER_STEP = 1              # the same on the inner side, where room is short
# Inner synthetic addresses step down from here, above the first page;
# the server refuses reads below SYNTHETIC_LIMIT at past positions
# (replay.c), leaving room above the top for arguments passed on the stack.
SYNTHETIC_INNER_TOP = 0xf000
SYNTHETIC_LIMIT = 0x10000
SYNTHETIC_OUTER_BASE = 1 << 56
MAX_FINAL_FRAMES = 4096
# A signal handler's frame gets the stack pointer SIGNAL_FRAME_BASE +
# (k << 16 | cfa) * SIGNAL_FRAME_STRIDE (k: its signal frame, 0 the
# outermost; cfa: the trampoline frame's synthetic stack address), where
# the server serves the interrupted PC and CFA to GDB's unwinder of the
# trampoline frame (gdb-plugin/server/signal-frames.h); x86-64 only.
SIGNAL_FRAME_BASE = 1 << 57
SIGNAL_FRAME_STRIDE = 0x1000
SIGNAL_FRAME_CFA_BITS = 16
# The tramp of frame 0 when it stands in the trampoline itself (the
# handler returned): its id is the one GDB's unwinder gave that frame as
# the handler's caller, the CFA the server serves, so that `finish` out of
# the handler stops there.
IN_TRAMPOLINE = "in trampoline"


def _trampoline_cfa(caller_sp):
    """The trampoline frame's stack address: inner to the interrupted
    frame's (CALLER_SP), as GDB wants where the trampoline is frame 0 (a
    normal frame of ours), and synthetic."""
    if 1 < caller_sp <= SYNTHETIC_INNER_TOP:
        return caller_sp - 1
    return SYNTHETIC_INNER_TOP
LEVEL_FLOOR = 0x1000        # call levels above the end's, without a final stack

# Connection number -> {level: (function_start, cfa, pc)} of the final
# stack; pc is None for the server's frames, the frame's own PC for GDB's
# frames beyond them (see the module comment).
_final = {}

# Connection number -> PCs of the outermost frames at which GDB's own
# unwinders, on the real registers at the end of the history, ended the
# stack (FRAME_UNWIND_OUTERMOST: the CFI of _start or of a thread's clone
# marks the return address undefined).  The outermost activation never
# returns, so at every past position its frame has that same PC.
_outermost = {}


class _FrameId:
    # GDB 13 reads these as gdb.Value (a Python int is refused).
    def __init__(self, sp, pc):
        address = gdb.lookup_type("unsigned long")
        self.sp = gdb.Value(sp).cast(address)
        self.pc = gdb.Value(pc).cast(address)


class _Frame:
    def __init__(self, pc, function_start, level, sp, tramp=None):
        self.pc = pc
        self.function_start = function_start
        self.level = level
        self.sp = sp
        self.tramp = tramp      # a handler's: its caller's PC, the trampoline
        self.signal_sp = None   # then: its stack pointer for GDB's unwinder
        # The stack pointer the program had in this frame at its PC (where
        # it resumes), when the server proved it; else None.
        self.resume_sp = None
        # {register name: value} of the registers the callee preserves for
        # this frame (rbx, rbp, r12-r15), where the server proved them.
        self.preserved = {}
        # Its CFA less its stack pointer just before the call it resumes
        # from, where the binaries' CFI says so; else None.
        self.call_cfa_offset = None
        # A frame left to GDB's own unwinders: the PCs of the TAILCALL
        # frames they show between it and its caller (_leave_to_gdb).
        self.gdb_tail_pcs = None
        # The CFI at its PC says its return address is undefined (a
        # thread's clone, _start): GDB's own unwinder ends the stack here.
        self.outermost = False


class _Proven:
    """What the server proved of a frame without a data log (qHwtr:frames):
    its activation (the position of the call that entered it) and CFA,
    and, where it resumes, its stack pointer and the registers its callee
    preserves for it."""

    def __init__(self, server_frame):
        def number(key):
            value = server_frame.get(key)
            return _num(value) if value else None
        self.activation = number("activation")
        self.cfa = number("cfa")
        self.sp = number("sp")
        offset = server_frame.get("call_cfa_offset")
        self.call_cfa_offset = int(offset) if offset is not None else None
        self.preserved = {name: _num(value) for name, value in
                          (server_frame.get("preserved") or {}).items()}
        # The CFA and return address GDB's DWARF unwinder finds for the
        # frame (see _leave_to_gdb), and the PCs of the tail-callers GDB
        # then shows between it and its caller.
        self.cfi_cfa = number("cfi_cfa")
        self.cfi_return = number("cfi_return")
        self.tail_pcs = ()
        self.tail_kept = 0      # of them, how many _real_frames kept
        # The binaries' CFI ends the stack at this frame (see _Frame).
        self.outermost = bool(server_frame.get("outermost"))


def _frame_cfa(proven, caller, decided, start):
    """The program's CFA for a frame gone from the final stack whose caller
    CALLER has its own: from the CFI at the call, else from value recovery
    (PROVEN), else None.  Where both answer they must agree."""
    cfi = _cfi_cfa(caller)
    recovered = _recovered_cfa(proven, caller, decided, start)
    if cfi is not None and recovered is not None and cfi != recovered:
        return None
    return cfi if cfi is not None else recovered


def _cfi_cfa(caller):
    """The CFA of the frame CALLER called, from CALLER's own (the
    program's) and the CFI's rule at its call (qHwtr:frames
    "call_cfa_offset"): rsp just before the call, as GDB's DWARF unwinder
    finds it on the live process.  A function of the caller's activation
    and call site alone, so every activation called from there gets the
    same id, as GDB gives them.  None where not known."""
    if caller is None or caller.call_cfa_offset is None or \
            not _is_real_sp(caller.sp):
        return None
    cfa = caller.sp - caller.call_cfa_offset
    return cfa if _is_real_sp(cfa) and cfa < caller.sp else None


def _recovered_cfa(proven, caller, decided, start):
    """The CFA the program had for a frame gone from the final stack,
    where the server proved it (PROVEN), else None.  An activation keeps
    the answer it first had until the next stop (DECIDED, by the position
    of the call that entered it): GDB compares a frame's ids within one
    command (a step's frame, the step-resume breakpoint at a callee's
    entry), and a window of recovery widened during it, or a position
    where the history links the frame another way (a return past a tail
    call), must not change the id under its feet.  The CFA must lie
    below the caller's (GDB rejects an inner caller), or at it for a
    frame of another function START (a function a tail-caller jumped to
    has its CFA: GDB tells such ids apart by their code), and above the
    synthetic addresses."""
    if proven is None or proven.activation is None:
        return None
    key = proven.activation
    if key not in decided:
        cfa = proven.cfa
        ok = cfa is not None and _is_real_sp(cfa) and \
            (caller is None or cfa < caller.sp or
             (cfa == caller.sp and start != caller.function_start))
        decided[key] = cfa if ok else None
    return decided[key]


# The signal return trampoline's address by its name (a static program's
# __restore_rt), for a handler that never returned to it in the history.
_restorer = {}


def _restorer_pc():
    if "pc" not in _restorer:
        try:
            _restorer["pc"] = int(gdb.parse_and_eval("&__restore_rt"))
        except (gdb.error, RuntimeError):
            _restorer["pc"] = None
    return _restorer["pc"]


def _num(value):
    if isinstance(value, str):
        return int(value, 0)
    return int(value)


# Return address -> whether a call instruction ends there.
_after_call = {}


def _is_aarch64(arch):
    return arch.name().startswith("aarch64")


def _pc_sp_names(arch):
    """The PC's and the stack pointer's register names on ARCH."""
    return ("pc", "sp") if _is_aarch64(arch) else ("rip", "rsp")


# Prefixes GDB's disassembler prints as words before an x86 mnemonic: the
# linker relaxes `call *foo@GOTPCREL(%rip)` to `addr32 call foo` (glibc's
# static _start calls __libc_start_main so), CET adds notrack, MPX bnd.
_PREFIXES = ("addr32", "addr16", "data16", "data32", "bnd", "notrack",
             "cs", "ds", "es", "ss", "fs", "gs")


def _without_prefixes(asm):
    """ASM's mnemonic and operands, [mnemonic, operands] or [mnemonic],
    after the prefixes GDB prints as separate words."""
    fields = asm.split(None, 1)
    while len(fields) == 2 and (fields[0] in _PREFIXES or
                                fields[0].startswith("rex")):
        fields = fields[1].split(None, 1)
    return fields


def _is_call(asm):
    fields = _without_prefixes(asm)
    return bool(fields) and fields[0].startswith("call")


def _follows_call(pc, function_start=0):
    """True if the instruction before PC is a call (PC is a return address).

    x86 cannot be decoded backwards, so when the function's start is known we
    decode forward from it to PC; otherwise (or if that does not land on PC)
    we try the lengths a call can have."""
    if pc in _after_call:
        return _after_call[pc]
    found = None
    try:
        arch = gdb.selected_inferior().architecture()
        if _is_aarch64(arch):
            # Fixed-length: the instruction before is at PC - 4; calls are
            # bl and blr (and their pointer-authenticating forms).
            insn = arch.disassemble(pc - 4)[0]
            _after_call[pc] = insn["asm"].split()[0].startswith("bl")
            return _after_call[pc]
        if function_start and 0 < pc - function_start < 0x10000:
            for insn in arch.disassemble(function_start, pc - 1):
                if insn["addr"] + insn["length"] == pc:
                    found = _is_call(insn["asm"])
        if found is None:
            found = False
            for length in (5, 2, 3, 6, 7, 4):
                insn = arch.disassemble(pc - length)[0]
                if insn["length"] == length and _is_call(insn["asm"]):
                    found = True
                    break
    except (gdb.error, gdb.MemoryError, IndexError):
        found = True    # cannot tell: keep the frame
    _after_call[pc] = found
    return found


def _has_debug_info(pc):
    """True if GDB has DWARF for the function at PC (a block with a
    function, not only a minimal symbol)."""
    try:
        block = gdb.block_for_pc(pc)
    except (RuntimeError, gdb.error):
        return False
    while block is not None and block.function is None:
        block = block.superblock
    return block is not None


def _insn_before(pc, function_start):
    """The text of the instruction that ends at PC, decoded forward from
    FUNCTION_START (x86 cannot be decoded backwards), or None."""
    if not function_start or not 0 < pc - function_start < 0x10000:
        return None
    try:
        arch = gdb.selected_inferior().architecture()
        for insn in arch.disassemble(function_start, pc - 1):
            if insn["addr"] + insn["length"] == pc:
                return insn["asm"]
    except (gdb.error, gdb.MemoryError):
        pass
    return None


def _direct(asm):
    """True for a call or jump with its target in the instruction (not
    through a register or memory: `jmp *%rax`, `call *0x10(%rip)`, AArch64's
    `br x16`, `blr x8`)."""
    if asm is None:
        return False
    fields = _without_prefixes(asm)
    if fields and fields[0].startswith(("br", "blr")):
        return False
    return len(fields) == 2 and not fields[1].startswith("*")


def _shown_as_tailcall(tail_frames, caller):
    """Whether GDB's DWARF unwinder would show TAIL_FRAMES (the server's
    frames left by a jump, innermost first) between their callee and CALLER
    as TAILCALL frames.  GDB finds that chain from the call sites' debug
    info alone (DW_TAG_call_site in the caller, DW_AT_call_tail_call in each
    tail-caller), without registers: so the caller and every tail-caller
    need DWARF, and every call and jump of the chain a target in the
    instruction (an indirect one, `jmp *%rax` through a vtable, names no
    function).  A PLT stub has no DWARF."""
    caller_pc = _num(caller["pc"])
    if not _has_debug_info(caller_pc - 1) or not _direct(
            _insn_before(caller_pc, _num(caller.get("function_start") or 0))):
        return False
    for f in tail_frames:
        start = _num(f.get("function_start") or 0)
        if not start or not _has_debug_info(start) or \
                not _direct(_insn_before(_num(f["pc"]), start)):
            return False
    return True


# (PC, the server's function start) -> the function a frame id names.
_id_functions = {}


def _frame_function(server_frame):
    """The function start SERVER_FRAME's id names, as GDB's own unwinders
    name it (the entry of the function whose code holds the PC), so that
    the ids of the final stack pair with ours and an activation keeps one
    id.  The server names the ELF symbol holding the PC; for a function GCC
    split into a hot and a .cold part (one DWARF function with two ranges)
    that is `foo.cold' in the cold part, where GDB names foo's entry: an
    activation stepping between its parts seemed to change frames (a
    reverse-step from foo.cold back into foo ran to foo's start)."""
    pc = _num(server_frame["pc"])
    start = _num(server_frame.get("function_start") or 0)
    key = (pc, start)
    if key not in _id_functions:
        entry = start
        try:
            block = gdb.block_for_pc(pc)
        except RuntimeError:
            block = None
        # The outermost function block holding PC (inlined ones are inside
        # it), unless one of them starts at the server's symbol.
        while block is not None and not block.is_static and \
                not block.is_global:
            if block.function is not None:
                try:
                    address = int(block.function.value().address)
                except (gdb.error, RuntimeError, TypeError):
                    address = None
                if address == start:
                    entry = start
                    break
                if address is not None:
                    entry = address
            block = block.superblock
        _id_functions[key] = entry
    return _id_functions[key]


def _real_frames(server_frames):
    """The server's frames, less the segments that were left by a tail jump
    where GDB would not show them, or cannot be shown safely.

    A function entered by a jump (a PLT stub jumping to an IFUNC, a tail
    call) replaces its caller's frame, so on the real stack that caller is
    gone.  GDB's DWARF unwinder puts it back as an artificial TAILCALL frame
    when the call sites' debug info names it (libc's _IO_getline between
    _IO_getline_info and _IO_fgets); btrace always does.  A Python unwinder
    can only make normal frames, and GDB skips artificial ones where it
    compares frames: with a normal frame as frame 0's caller, `finish` stops
    at a PC after the jump that never runs, and reverse-next/-step no longer
    see a return into the caller (scenarios/tail-calls.scn).  So we keep such
    a caller where GDB would show it (_shown_as_tailcall) and frame 0 is not
    its callee; elsewhere (a PLT stub, code without debug info, the caller
    of frame 0) it is left out.  Either way they are noted on their
    callee's _Proven: where GDB's own unwinder can take the callee it shows
    them itself (_leave_to_gdb, scenarios/tail-calls-nodata.scn).  The
    server marks a segment entered by a jump with "tailcall"; failing that,
    a caller whose PC does not follow a call instruction was left by a
    jump."""
    def left_by_jump(index):
        if server_frames[index].get("exit_target"):
            return False    # frame 0's non-local exit goes to its PC
        if server_frames[index].get("sigtramp") or \
                server_frames[index - 1].get("sigtramp") or \
                server_frames[index - 1].get("in_sigtramp"):
            return False    # a signal's: the interrupted PC, no call
        callee = server_frames[index - 1]
        if "tailcall" in callee:
            return bool(callee["tailcall"])
        f = server_frames[index]
        return not _follows_call(_num(f["pc"]),
                                 _num(f.get("function_start") or 0))

    frames = []
    index = 0
    while index < len(server_frames):
        f = server_frames[index]
        if f.get("sigtramp"):
            # GDB's <signal handler called> frame: the handler's caller,
            # made by GDB's own unwinder (see HwtrecUnwinder).
            tramp = _num(f["pc"]) if f.get("pc") is not None \
                else _restorer_pc()
            if not frames or tramp is None or \
                    _is_aarch64(gdb.selected_inferior().architecture()):
                break
            frames[-1] = frames[-1][:3] + (tramp,) + frames[-1][4:]
            index += 1
            continue
        if f.get("pc") is None:
            break       # the caller's PC is not known: the outermost frame
        # A run of frames left by jumps (a PLT stub, then a wrapper), up
        # to the frame that made the call.
        run_end = index
        while index > 0 and run_end < len(server_frames) and \
                server_frames[run_end].get("pc") is not None and \
                left_by_jump(run_end):
            run_end += 1
        if run_end > index:
            tail = server_frames[index:run_end]
            caller = server_frames[run_end] \
                if run_end < len(server_frames) else None
            shown = caller is not None and caller.get("pc") is not None \
                and _shown_as_tailcall(tail, caller)
            keep = index >= 2 and shown
            if shown and frames and frames[-1][4] is not None:
                frames[-1][4].tail_pcs = tuple(_num(t["pc"]) for t in tail)
                frames[-1][4].tail_kept = len(tail) if keep else 0
            if keep:
                # Each shares the activation (and so the CFA) of the
                # call that began the run: their callee's too.
                frames += [(_num(t["pc"]), _frame_function(t),
                            int(t.get("level", 0)), None, _Proven(t))
                           for t in tail]
            index = run_end
            continue
        frames.append((_num(f["pc"]), _frame_function(f),
                       int(f.get("level", 0)),
                       IN_TRAMPOLINE if f.get("in_sigtramp") else None,
                       _Proven(f)))
        index += 1
    return frames


def layout(server_frames, final, decided=None):
    """Frames (innermost first) with the stack address of each frame id.
    DECIDED ({activation: CFA or None}) holds the ids given to activations
    not in the final stack since the last stop, and gains the new ones."""
    if decided is None:
        decided = {}
    frames = _real_frames(server_frames)
    if frames and final:
        # The callers older than the whole history, below its outermost
        # frame here, if the final stack has them at the next levels.
        level = frames[-1][2] - 1
        while final.get(level, (0, 0, None))[2] is not None:
            start, _, pc = final[level]
            frames.append((pc, start, level, None, None))
            level -= 1
    known_outer = min(final) if final else None
    # Levels count from the innermost frame at the end (0; callers are
    # negative): the synthetic addresses step down from the outermost
    # known one, or from a floor far below any call depth.
    floor = known_outer if known_outer is not None else -LEVEL_FLOOR
    result = [None] * len(frames)
    chain_ok = True     # the callers so far are the final stack's frames
    real_ok = True      # no caller so far has an inner synthetic address
    signal_frames = 0
    for index in range(len(frames) - 1, -1, -1):
        pc, start, level, tramp, proven = frames[index]
        entry = final.get(level) if final else None
        caller = result[index + 1] if index + 1 < len(frames) else None
        if known_outer is not None and level < known_outer:
            sp = SYNTHETIC_OUTER_BASE + LEVEL_STEP * (known_outer - level)
        elif chain_ok and entry is not None and entry[0] == start:
            sp = entry[1]
        else:
            chain_ok = False
            sp = _frame_cfa(proven, caller, decided, start) \
                if real_ok else None
            if sp is None:
                real_ok = False
                # More than 61439 levels below the floor the ids stay at
                # 1: GDB then ends the stack there ("previous frame
                # identical").
                sp = max(SYNTHETIC_INNER_TOP -
                         INNER_STEP * max(level - floor, 0), 1)
        caller_sp = caller.sp if caller is not None else SYNTHETIC_INNER_TOP
        if tramp == IN_TRAMPOLINE:
            sp = _trampoline_cfa(caller_sp)
            tramp = None
        result[index] = _Frame(pc, start, level, sp, tramp)
        if proven is not None:
            result[index].resume_sp = proven.sp
            result[index].preserved = proven.preserved
            result[index].call_cfa_offset = proven.call_cfa_offset
            result[index].outermost = proven.outermost
        if tramp is not None:
            result[index].signal_sp = SIGNAL_FRAME_BASE + SIGNAL_FRAME_STRIDE * (
                signal_frames << SIGNAL_FRAME_CFA_BITS |
                _trampoline_cfa(caller_sp))
            signal_frames += 1
    # Innermost last, so that the indexes of frames and result still pair.
    for index in range(len(result) - 2, -1, -1):
        proven = frames[index][4]
        if proven is None or not proven.tail_pcs:
            continue
        caller = index + 1 + proven.tail_kept
        if caller < len(result) and \
                _leave_to_gdb(result[index], proven, result[caller]):
            del result[index + 1:caller]
    return result


def _leave_to_gdb(frame, proven, caller):
    """Whether GDB's own unwinders take FRAME (what the server PROVEN of
    it) so as to show the tail-callers between it and CALLER, and if so
    notes them on FRAME.  GDB makes those TAILCALL frames only as the caller of a frame its DWARF
    unwinder unwound, and `finish` and `up` skip or show them as on the live
    process (a normal frame of ours there would make `finish` stop after a
    jump that never returns).  Only where GDB's unwinder, from the registers
    and memory the server serves here and those we give the frame (an
    outer frame's stack pointer and rbp where it resumes), finds the id we
    give the frame and CALLER's PC: the frame keeps one id whichever
    unwinder makes it, and the chain goes on at CALLER."""
    if proven is None or not proven.tail_pcs or \
            proven.cfi_cfa is None or proven.cfi_cfa != frame.sp or \
            not _is_real_sp(frame.sp) or proven.cfi_return != caller.pc:
        return False
    frame.gdb_tail_pcs = proven.tail_pcs
    return True


def _gdb_stack():
    """GDB's own frame ids at the end of the history, innermost first, as
    (function start, CFA, PC, whether a tail-call frame); inlined calls are GDB's frames within one
    real frame, so they are left out; tail-call frames are kept, as
    _real_frames keeps them."""
    stack = []
    frame = gdb.newest_frame()
    while frame is not None and len(stack) < MAX_FINAL_FRAMES:
        if frame.type() != gdb.INLINE_FRAME:
            try:
                text = gdb.execute("maintenance print frame-id %d"
                                   % frame.level(), to_string=True)
            except gdb.error:
                break
            match = re.search(r"stack=(0x[0-9a-f]+),code=(0x[0-9a-f]+)", text)
            if not match:
                break
            code = int(match.group(2), 16)
            tailcall = frame.type() == gdb.TAILCALL_FRAME
            # Passed over when pairing, as the server has no segment
            # for the trampoline's frame.
            skipped = tailcall or frame.type() == gdb.SIGTRAMP_FRAME
            if tailcall and frame.function():
                # Its id's code is its PC (after the jump); the server's
                # frame for it is known by the function's start.
                code = int(frame.function().value().address)
            stack.append((code, int(match.group(1), 16), frame.pc(),
                          skipped))
        frame = frame.older()
    return stack


def _outermost_pc():
    """The PC of the selected thread's outermost frame when GDB's own
    unwinders ended the stack there (see _outermost), or None."""
    frame = gdb.newest_frame()
    count = 0
    while frame.older() is not None and count < MAX_FINAL_FRAMES:
        frame = frame.older()
        count += 1
    if frame.unwind_stop_reason() != gdb.FRAME_UNWIND_OUTERMOST:
        return None
    return frame.pc()


def match_final_stack(server_frames, gdb_stack):
    """{level: (function start, CFA, PC)} of the final stack: the server's
    frames at the end paired with GDB's, while their functions agree (PC
    None); when all of them agree, GDB's frames beyond, the callers older
    than the history, at the levels below (with their PCs).  A tail-call
    frame of GDB's that _real_frames leaves out (frame 0's caller) is
    passed over."""
    final = {}
    real = _real_frames(server_frames)
    used = 0
    for pc, start, level, _, _ in real:
        while used < len(gdb_stack) and gdb_stack[used][0] != start and \
                gdb_stack[used][3]:
            used += 1
        if used >= len(gdb_stack) or gdb_stack[used][0] != start:
            break
        final[level] = (start, gdb_stack[used][1], None)
        used += 1
    if real and len(final) == len(real):
        level = real[-1][2]
        for code, cfa, pc, _ in gdb_stack[used:]:
            level -= 1
            final[level] = (code, cfa, pc)
    return final


# Connection number -> (tid, end position, GDB's stack there), noted at the
# first stop at the end; paired with the server's frames only when a past
# position needs it, so that the first prompt does not wait for the history.
_final_gdb = {}


def final_stack(conn):
    """The final stack's real frame ids by level (see the module comment)."""
    if conn.num not in _final and conn.num in _final_gdb:
        tid, end, stack = _final_gdb[conn.num]
        if end is None:     # noted while the server was building the history
            # (from the end of the trace it decoded first, without waiting)
            server_frames = target.end_frames(tid)
        else:
            server_frames = target.frames(tid, end)
        _final[conn.num] = match_final_stack(server_frames, stack)
        del _final_gdb[conn.num]
    return _final.get(conn.num)


def _on_stop(event):
    conn = target.remote_connection()
    if conn is None or not target.is_hwtrec(conn):
        return
    try:
        data = target.info()
        live = bool(data.get("live"))
        tid = target.thread_tid()
        entry = target.find_thread_info(tid, data)
        # Live, a thread without a history yet stands at its end.
        at_end = ((entry is None and live) or
                  (entry is not None and target.at_end(entry, conn)))
        # Live, the end of the history moves with every stop there.
        if live and at_end:
            _final.pop(conn.num, None)
            _final_gdb.pop(conn.num, None)
        if conn.num in _final or conn.num in _final_gdb:
            return
        if at_end and (entry is None or target.real_registers(entry, conn)):
            _final_gdb[conn.num] = (tid, entry.get("end") if entry else None,
                                    _gdb_stack())
            if not live and entry is not None and \
                    not entry.get("registers_logged"):
                end_registers.send(tid)
            outermost = _outermost_pc()
            if outermost is not None:
                _outermost.setdefault(conn.num, set()).add(outermost)
    except gdb.error as err:
        gdb.write("hwtrec: cannot note the final call stack: %s\n" % err,
                  gdb.STDERR)


class HwtrecUnwinder(Unwinder):
    """PC-only frames from the function segments, at past positions."""

    def __init__(self):
        super().__init__("hwtrecord")
        self.frames = None      # the chain being built, or None
        self.next_index = 0     # the server frame the next caller must be
        self.last_level = None
        self.tramp = None       # the trampoline's PC, the next frame's
        self.warned = False
        # (tid, level, pc) -> the chain _refresh built there since the last
        # stop, resume, record goto or write.
        self.kept = {}
        # (tid, level, pc) -> the chain built when a breakpoint with
        # commands was hit, before GDB printed the stop (prefetch); kept
        # past the stop event, until the thread may move.
        self.prefetched = {}
        # tid -> {activation: CFA or None}: the ids given since the last
        # stop to activations gone from the final stack (_recovered_cfa).
        self.decided = {}

    def __call__(self, pending_frame):
        target.in_unwinder = True
        try:
            return self._unwind(pending_frame)
        except (gdb.error, KeyError, ValueError, TypeError) as err:
            if not self.warned:
                self.warned = True
                gdb.write("hwtrec: frame unwinder: %s\n" % err, gdb.STDERR)
            return None
        finally:
            target.in_unwinder = False

    def forget(self, event=None):
        self.kept.clear()

    def moved(self, event=None):
        """The thread may move (a resume, a record goto, a write)."""
        self.kept.clear()
        self.prefetched.clear()

    def prefetch(self, conn):
        """Build the selected thread's chain now, its packets sent with no
        breakpoint commands pending (see _before_commands)."""
        pc = int(gdb.newest_frame().pc())
        self.new_stop()     # a stop for the user, as the stop event says
        target.in_unwinder = True
        try:
            self._build(conn, target.thread_tid())
        finally:
            target.in_unwinder = False
        self.prefetched[(target.thread_tid(), 0, pc)] = self.frames

    def new_stop(self, event=None):
        """At a stop for the user (or a record goto) GDB compares no frame
        ids with older ones: activations may take the ids recovery now
        proves."""
        self.decided.clear()

    def _refresh(self, conn, level, pc):
        """A new chain of frames: the thread may have moved."""
        self.frames = None
        self.next_index = 0
        tid = target.thread_tid()
        # Back in a thread after another (`thread apply`, `thread N` and
        # back, `info threads`), GDB 13 re-finds the selected frame by
        # unwinding inside its own lookup of the selected frame, where a
        # packet's command (`maint packet`, target._raw) asks for the
        # selected frame again and GDB dies ("Recursive internal problem").
        # A thread stopped for the user has not moved since its chain was
        # built at this PC: reuse it.  A running one (a step's own stops,
        # which raise no stop event) builds it anew.
        key = (tid, level, int(pc))
        if key in self.prefetched:
            # Until it resumes: the stop's handlers send packets (which
            # throw GDB's frame cache away) before the commands run.
            self.frames = self.prefetched[key]
            return
        thread = gdb.selected_thread()
        if key in self.kept and thread is not None and \
                not thread.is_running():
            self.frames = self.kept[key]
            return
        self._build(conn, tid)
        self.kept[key] = self.frames

    def _build(self, conn, tid):
        # qHwtr:info without waiting: live, right after a stop every thread
        # is at its end, and the history need not be brought up to it.
        entry = target.find_thread_info(tid)
        if entry is None or target.real_registers(entry, conn):
            return      # the core's registers: GDB's own unwinders work
        self.frames = layout(target.frames(tid), final_stack(conn),
                             self.decided.setdefault(tid, {}))

    def _unwind(self, pending_frame):
        conn = target.remote_connection()
        if conn is None or not target.is_hwtrec(conn):
            return None
        level = pending_frame.level()
        pc_name, sp_name = _pc_sp_names(pending_frame.architecture())
        pc = pending_frame.read_register(pc_name)
        # A handler's caller, the signal return trampoline: GDB's own
        # unwinder makes the <signal handler called> frame, reading the
        # interrupted PC where the server serves it; the chain goes on.
        tramp, self.tramp = self.tramp, None
        if tramp is not None and self.last_level is not None and \
                level == self.last_level + 1 and int(pc) == tramp:
            self.last_level = level
            return None
        # GDB builds a chain from level 0 outwards; a level we have seen
        # starts a new chain.  Frame 0 may be GDB's inline frame, so the
        # first level we are asked about can be 1, as it is when the chain
        # goes on: then a PC other than the caller's we gave (a stop inside
        # an inlined function after one outside it, while reverse-next
        # steps back through the inlined call) starts a new chain too; the
        # old chain's caller made GDB see another frame there and stop.
        if self.last_level is None or level <= self.last_level or (
                self.frames is not None and
                self.next_index < len(self.frames) and
                int(pc) != self.frames[self.next_index].pc):
            self._refresh(conn, level, pc)
        self.last_level = level
        if self.frames is None or self.next_index >= len(self.frames):
            return None
        this = self.frames[self.next_index]
        if int(pc) != this.pc:
            return None
        if this.gdb_tail_pcs:
            # GDB's DWARF unwinder takes it and its tail-callers (GDB's
            # own sniffer claims those before any Python unwinder); the
            # chain goes on at the caller (see _leave_to_gdb).
            self.next_index += 1
            return None
        if self.next_index == len(self.frames) - 1 and \
                (this.outermost or this.pc in _outermost.get(conn.num, ())):
            return None     # GDB's own unwinder ends the stack here
        self.next_index += 1
        info = pending_frame.create_unwind_info(
            _FrameId(this.sp, this.function_start))
        # The outermost frame of the history unwinds to PC 0, which GDB
        # takes as the end of the stack; a register left unsaved would make
        # GDB throw "PC not saved" wherever it looks one frame further.
        caller = (self.frames[self.next_index]
                  if self.next_index < len(self.frames) else None)
        caller_pc = caller.pc if caller is not None else 0
        caller_sp = _caller_sp(this, caller, conn)
        if this.tramp is not None:
            caller_pc = this.tramp
            caller_sp = this.signal_sp
            self.tramp = this.tramp
        info.add_saved_register(pc_name, gdb.Value(caller_pc).cast(pc.type))
        if this.tramp is None:
            _same_values(pending_frame, info)
        # What the callee preserves for its caller (the calling
        # convention), as GDB's DWARF unwinder reads it from the slots the
        # callee saved it in.
        if caller is not None and this.tramp is None:
            word = gdb.lookup_type("unsigned long")
            for name, value in caller.preserved.items():
                info.add_saved_register(name, gdb.Value(value).cast(word))
        if caller_sp is not None:
            sp_type = gdb.lookup_type("void").pointer()
            info.add_saved_register(sp_name,
                                    gdb.Value(caller_sp).cast(sp_type))
        return info


# The general registers a call may change (System V AMD64, AAPCS64), and
# the flags: GDB's DWARF unwinder gives a caller these as they are in its
# callee ("same value": the CFI has no rule for them), and record full
# shows them so; a caller's local that lives in one (at -O2) reads it.
_CALL_CLOBBERED = {
    "x86-64": ("rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",
               "eflags"),
    "aarch64": tuple("x%d" % i for i in range(19)) + ("cpsr",),
}


def _same_values(pending_frame, info):
    """Give the caller of PENDING_FRAME its callee's call-clobbered
    registers, as GDB's DWARF unwinder does; one the callee's frame does
    not know stays unsaved (a Python unwinder cannot give an unavailable
    register)."""
    arch = pending_frame.architecture()
    names = _CALL_CLOBBERED["aarch64" if _is_aarch64(arch) else "x86-64"]
    for name in names:
        try:
            value = pending_frame.read_register(name)
            int(value)      # raises if it is not available
        except (gdb.error, ValueError):
            continue
        info.add_saved_register(name, value)


def _is_real_sp(sp):
    """Whether SP is a stack address the program had (a final frame's
    CFA), not one of the synthetic ones."""
    return SYNTHETIC_LIMIT <= sp < SYNTHETIC_OUTER_BASE


def _caller_sp(this, caller, conn):
    """The stack pointer to give THIS frame's CALLER, or None (GDB then
    shows it `<not saved>`).  A user reads it (`up`, `p $sp`), so it is
    the program's: the one the server proved where the caller resumes, or
    THIS frame's real CFA.  A synthetic address is given only where no
    user sees it and GDB's own unwinders need a number: past the outermost
    frame (PC 0 ends the stack) and to the outermost frame GDB's DWARF
    unwinder ends the stack at (it reads the stack pointer there)."""
    if caller is not None and caller.resume_sp is not None:
        return caller.resume_sp
    if _is_real_sp(this.sp) or caller is None or caller.outermost or \
            caller.pc in _outermost.get(conn.num, ()):
        return this.sp
    return None


# Breakpoint number -> its hit count when last seen (_before_commands).
_hits = {}


def _before_commands(unwinder, bp):
    """A breakpoint with commands was just hit: build the thread's chain.
    GDB 13's gdb.execute runs the commands of the breakpoint the thread
    stopped at (bpstat_do_actions) when it returns, and the unwinder sends
    its packets with `maintenance packet`: while GDB printed the stop, the
    commands ran inside the unwinder (a `p` of a local needs the frame
    being built: GDB died of SIGSEGV; a `continue` resumed mid-unwind).
    GDB counts the hit (breakpoint_modified) before the thread holds the
    new stop's commands: packets sent here run none."""
    seen, _hits[bp.number] = _hits.get(bp.number, 0), bp.hit_count
    if not bp.commands or bp.hit_count <= seen:
        return
    conn = target.remote_connection()
    thread = gdb.selected_thread()
    if conn is None or thread is None or \
            not target.is_hwtrec(conn, probe=False):
        return
    try:
        unwinder.prefetch(conn)
    except (gdb.error, KeyError, ValueError, TypeError):
        pass    # the unwinder will say why when GDB asks it


def register():
    unwinder = HwtrecUnwinder()
    gdb.events.breakpoint_modified.connect(
        lambda bp: _before_commands(unwinder, bp))
    register_unwinder(None, unwinder, replace=True)
    gdb.events.stop.connect(unwinder.forget)
    gdb.events.stop.connect(unwinder.new_stop)
    gdb.events.cont.connect(unwinder.moved)
    # A live thread's registers or memory written at a stop (`set var`,
    # `p $rsp = ...`) change its callers without a stop or a resume.
    gdb.events.register_changed.connect(unwinder.moved)
    gdb.events.memory_changed.connect(unwinder.moved)
    target.on_goto(unwinder.moved)
    target.on_goto(unwinder.new_stop)
    gdb.events.stop.connect(_on_stop)
