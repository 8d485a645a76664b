# record-full-pcs.py: GDB's `record full` as a view of the instructions that
# main executes.  Usage:
#   MAIN_VADDR=A MAIN_RET=R TEXT="VADDR OFFSET SIZE" \
#       gdb -nx -batch -iex 'python import sys; sys.path.insert(0, ORACLEDIR)' \
#           -x record-full-pcs.py PROGRAM
# starts PROGRAM natively or through gdbserver (testsuite/oracle/
# record_full.py: whichever can replay on this host), stops at main's first
# instruction (link address A), records with `record full` up to and
# including main's ret (link address R), then replays the log
# from its beginning one stepi at a time and prints each instruction of
# PROGRAM's executable segment TEXT as "1 PROGRAM 0xFILE_OFFSET" (the
# stepper's format).  `record instruction-history` exists only for btrace,
# hence the replay.
import os

import gdb

import record_full  # testsuite/oracle: native or through gdbserver

main_vaddr = int(os.environ["MAIN_VADDR"], 0)
main_ret = int(os.environ["MAIN_RET"], 0)
text_vaddr, text_offset, text_size = (int(x, 0) for x in os.environ["TEXT"].split())
program = gdb.current_progspace().filename

gdb.execute("set pagination off")
gdb.execute("set confirm off")
record_full.start(program)
print("# " + record_full.describe())
gdb.execute("break *main")
gdb.execute("continue", to_string=True)
bias = int(gdb.parse_and_eval("$pc")) - main_vaddr
gdb.execute("record full")
gdb.execute("set record full insn-number-max unlimited")
gdb.execute("tbreak *0x%x" % (main_ret + bias))
gdb.execute("continue", to_string=True)
gdb.execute("stepi", to_string=True)	# the ret itself
end = int(gdb.parse_and_eval("$pc"))
gdb.execute("record goto begin", to_string=True)
print("# start 1")
while True:
    pc = int(gdb.parse_and_eval("$pc"))
    if pc == end:
        break
    vaddr = pc - bias
    if text_vaddr <= vaddr < text_vaddr + text_size:
        print("1 %s 0x%x" % (program, vaddr - text_vaddr + text_offset))
    gdb.execute("stepi", to_string=True)
