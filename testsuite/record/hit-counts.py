# hit-counts.py: GDB as an independent oracle of how often functions are
# entered.  Usage:
#   HIT_FUNCS="FUNC..." gdb -nx -batch -x hit-counts.py PROGRAM
# puts a breakpoint on the first instruction of each FUNC (break *FUNC: no
# prologue skipping, so a tail jump into FUNC counts too), runs PROGRAM to its
# end and prints "FUNC COUNT" per function.
import os

import gdb

gdb.execute("set pagination off")
gdb.execute("set confirm off")
funcs = os.environ["HIT_FUNCS"].split()
points = [(f, gdb.Breakpoint("*" + f, internal=False)) for f in funcs]
gdb.execute("run", to_string=True)
while gdb.selected_inferior().pid != 0:
    gdb.execute("continue", to_string=True)
for f, bp in points:
    print("%s %d" % (f, bp.hit_count))
