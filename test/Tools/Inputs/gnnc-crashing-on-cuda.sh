#!/bin/sh
# A gnnc that dies of SIGSEGV whenever it is asked for the CUDA target, and is
# the real one ($REAL_GNNC) otherwise: the pipeline fuzzer must report it.
for arg in "$@"; do
  [ "$arg" = --target=cuda ] && kill -SEGV $$
done
exec "$REAL_GNNC" "$@"
