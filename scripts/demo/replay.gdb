# What scripts/demo.sh types into `hwtrec replay`: GDB opens at the crash.
set trace-commands on
set pagination off
bt
reverse-step
reverse-step
reverse-step
bt
reverse-finish
info record
record function-call-history /c
