#!/bin/sh
# The example non-Node app of Dockerfile.examples: a shell worker that detaches each job and
# moves on, as many scripts do. The detached jobs are orphans, re-parented to PID 1, which must
# reap them: sexton does. On SIGTERM the worker stops starting jobs and exits.
stopping=
trap 'echo "worker: TERM, finishing"; stopping=1' TERM
n=0
while [ -z "$stopping" ]; do
  n=$((n + 1))
  ( (sleep 0.1; echo "worker: job $n done") & )
  sleep 1 &
  wait $!  # an interruptible sleep: the trap runs as soon as TERM arrives
done
echo "worker: stopped after $n jobs"
