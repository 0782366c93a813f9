#!/usr/bin/env bash
# Start scripts/train_petoolllama.py in the background, detached from the terminal (nohup), with a log.
#
#   scripts/train_background.sh --out runs/petoolllama [any train_petoolllama.py flags]
#
# The log is OUT.log beside the run folder (appended to, so one log holds every restart) and the
# process id OUT.pid. Stop it with `kill "$(cat OUT.pid)"`; run the same command again to resume:
# finished stages are skipped and SFT / DPO continue from their latest checkpoint-N
# (--save-steps N writes one every N steps). Python: $PYTHON, else .venv/bin/python, else python3.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="runs/petoolllama"
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[$i]}" in
    --out) out="${args[$((i + 1))]:?--out needs a folder}" ;;
    --out=*) out="${args[$i]#--out=}" ;;
  esac
done
case "$out" in /*) ;; *) out="$root/$out" ;; esac
python="${PYTHON:-}"
if [ -z "$python" ]; then
  if [ -x "$root/.venv/bin/python" ]; then python="$root/.venv/bin/python"; else python="python3"; fi
fi
mkdir -p "$(dirname "$out")"
if [ -f "$out.pid" ] && kill -0 "$(cat "$out.pid")" 2>/dev/null; then
  echo "a run is already going in $out (pid $(cat "$out.pid")); its log: $out.log" >&2
  exit 1
fi
echo "=== $(date '+%Y-%m-%d %H:%M:%S') start: ${args[*]}" >>"$out.log"
cd "$root"
nohup env PYTHONUNBUFFERED=1 "$python" "$root/scripts/train_petoolllama.py" "${args[@]}" >>"$out.log" 2>&1 </dev/null &
echo $! >"$out.pid"
echo "started pid $(cat "$out.pid"); log: $out.log"
