#!/usr/bin/env bash
# Runs CI as a new user would, N times in a row: each run clones the committed main into a temp
# dir and runs `.ci/run` there. With --load, one core is kept busy for the whole soak (a bounded
# busy loop, ended by its pid), as on a shared CI machine. Prints one line per run: pass, or the
# tests that failed. Logs are kept under the printed directory.
#   scripts/ci-soak.sh 3 --load
set -euo pipefail

usage() { echo "usage: scripts/ci-soak.sh N [--load]" >&2; exit 2; }
[ $# -ge 1 ] && [[ $1 =~ ^[1-9][0-9]*$ ]] || usage
runs=$1
load=no
[ $# -eq 2 ] && { [ "$2" = --load ] || usage; load=yes; }
[ $# -le 2 ] || usage

repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
logs=$(mktemp -d /tmp/sexton-ci-soak-XXXXXX)
busy_note=; [ "$load" = yes ] && busy_note=', one core kept busy'
# Every run tests the commit main was at when the soak began, whatever lands on main meanwhile.
commit=$(git -C "$repo" rev-parse main)
echo "ci-soak: $runs run(s) of main at ${commit:0:7}$busy_note; logs in $logs"

busy=
stop_load() { [ -z "$busy" ] || { kill "$busy" 2>/dev/null || true; wait "$busy" 2>/dev/null || true; busy=; }; }
trap stop_load EXIT
if [ "$load" = yes ]; then
  # Bounded: no soak run may take longer than CI's own 90 minutes.
  timeout $((runs * 90 * 60)) sh -c 'while :; do :; done' &
  busy=$!
fi

failed=0
for i in $(seq 1 "$runs"); do
  # git makes the checkout (mode 755) inside a root-only temp dir, as a fresh clone would be.
  parent=$(mktemp -d /tmp/sexton-ci-soak-clone-XXXXXX)
  clone="$parent/sexton"
  git clone --quiet --branch main "$repo" "$clone"
  git -C "$clone" reset --quiet --hard "$commit"
  log="$logs/run-$i.log"
  started=$(date +%s)
  if (cd "$clone" && timeout 90m bash .ci/run) >"$log" 2>&1; then
    echo "run $i: pass ($(( $(date +%s) - started )) s)"
  else
    failed=$((failed + 1))
    # vitest names each failed test on a FAIL line; anything else failed outside a test.
    tests=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^ *FAIL ' | sed -E 's/^ *FAIL +//' | sort -u | head -20 || true)
    echo "run $i: FAIL ($(( $(date +%s) - started )) s): ${tests:-$(tail -n 1 "$log")}" | tr '\n' ';'
    echo
  fi
  rm -rf "$parent"
done
echo "ci-soak: $((runs - failed)) of $runs passed"
[ "$failed" -eq 0 ]
