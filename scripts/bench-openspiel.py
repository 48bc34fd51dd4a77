#!/usr/bin/env python3
"""OpenSpiel's C++ random-playout loop, per CPU-second, for comparison with
kinrow's playouts (scripts/bench-engine.sh). Needs OpenSpiel from PyPI
(`pip install open-spiel`, in a venv). Run it pinned as kinrow's bench is:

    taskset -c 0 python3 scripts/bench-openspiel.py [RUNS]

The loop is RandomRolloutEvaluator::Evaluate (clone the state, then
LegalActions, a uniform pick, ApplyAction to the end), driven as cheaply as
pyspiel allows: an MCTSBot with max_simulations 1 evaluates the root once,
so one Python call runs N rollouts in C++. Time is time.process_time().
"""
import sys
import time

import pyspiel

GAMES = [
    # (name, pyspiel game string, rollouts per run)
    ("tic_tac_toe", "tic_tac_toe", 300_000),
    ("gomoku 15x15 k5", "gomoku", 6_000),
]


def rollouts_per_cpu_second(game_string, n, seed):
    game = pyspiel.load_game(game_string)
    # The C++ classes (pyspiel's), not the Python ones of
    # open_spiel.python.algorithms.mcts, which are about 50 times slower.
    evaluator = pyspiel.RandomRolloutEvaluator(n, seed)
    bot = pyspiel.MCTSBot(game, evaluator, 2.0, 1, 1000, False, seed, False)
    state = game.new_initial_state()
    start = time.process_time()
    bot.mcts_search(state)
    return n / (time.process_time() - start)


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    import importlib.metadata
    print(f"# OpenSpiel {importlib.metadata.version('open_spiel')}, {runs} runs each")
    for name, game_string, n in GAMES:
        rates = [rollouts_per_cpu_second(game_string, n, seed) for seed in range(runs)]
        print(f"openspiel {name:16} {min(rates):>12.0f} to {max(rates):.0f} playouts/CPU-s "
              f"({n} rollouts a run)")


if __name__ == "__main__":
    main()
