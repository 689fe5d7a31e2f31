#!/usr/bin/env bash
# Smoke test of the full-screen client in a real terminal: tmux runs `saboteur-p2p play`
# (you and two heuristic bot peers on loopback) at 80x24, sends keys, and checks the screen.
#
#   scripts/client_smoke.sh            # PYTHON=python3.11 scripts/client_smoke.sh to choose
#
# Exits 0 when every check passes (or when tmux is missing: there is nothing to drive),
# 1 otherwise, printing the screen it last saw.
set -euo pipefail

if ! command -v tmux >/dev/null 2>&1; then
    echo "client_smoke: tmux is not installed; nothing to check (install tmux to run this smoke test)"
    exit 0
fi

PYTHON=${PYTHON:-python3}
work=$(mktemp -d)
session="saboteur-smoke-$$"
cleanup() {
    tmux kill-session -t "$session" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

screen() { tmux capture-pane -p -t "$session"; }

# wait_for PATTERN [SECONDS]: poll the screen until it shows PATTERN (a fixed string)
wait_for() {
    local pattern=$1 limit=${2:-30} waited=0
    until screen | grep -qF -- "$pattern"; do
        sleep 0.2
        waited=$((waited + 1))
        if [ "$waited" -ge $((limit * 5)) ]; then
            echo "client_smoke: FAILED: no '$pattern' on the screen after ${limit} s; it shows:"
            screen
            exit 1
        fi
    done
    echo "client_smoke: ok: $pattern"
}

keys() { tmux send-keys -t "$session" "$@"; }

tmux new-session -d -s "$session" -x 80 -y 24 \
    "cd '$work' && NO_COLOR=${NO_COLOR:-} $PYTHON -m saboteur_p2p play --players 3 --bot-delay 0 \
        --name smoke --identity '$work/me.identity' --log-dir '$work/logs'; echo \$? > '$work/exit'; sleep 5"

wait_for "YOUR MOVE" 90                  # the table filled and the first deal reached us
wait_for "players"
wait_for "╔═0═╗"                          # the face-down goals
wait_for "──H──"                          # the start ladder
screen

keys "?"
wait_for "any other key closes"
keys z

keys 1                                    # pick the first card ...
wait_for " 1: "
keys x                                    # ... and discard it face down
wait_for "played: pass"

keys c
keys -l "hello from tmux"
keys Enter
wait_for "<smoke> hello from tmux"

wait_for "YOUR MOVE" 60
keys ":"
keys -l "path 9 at 5,5"
wait_for "there is no card 9 in your hand (1-"   # cards by hand slot, checked while typing
keys Enter
wait_for "there is no card 9 in your hand"
keys Escape

keys R                                    # the rules, from docs/rules.md
wait_for "the rules (docs/rules.md)"
keys z

keys q
wait_for "Leave the table?"
keys y
for _ in $(seq 1 50); do [ -f "$work/exit" ] && break; sleep 0.2; done
status=$(cat "$work/exit" 2>/dev/null || echo missing)
if [ "$status" != "0" ]; then
    echo "client_smoke: FAILED: leaving the table should exit with status 0, not $status"
    screen
    exit 1
fi
echo "client_smoke: ok: left the table (exit status 0)"
echo "client_smoke: all checks passed"
