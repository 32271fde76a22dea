#!/usr/bin/env python3
"""Independent replay of SGF records with sgfmill, for the cross-check in real_records.rs.

Usage: sgfmill_check.py FILE.sgf...

For every record prints (one line each, boards as width*height characters read row by row
from the top-left corner, 'X' black, 'O' white, '.' empty):

    R <path> <size>                 start of a record
    S <board>                       position after setup (AB/AW/AE)
    M <index> <B|W> <point|pass> <board>
                                    position after move <index> (0-based into the main line)
    I <index> <B|W> <point> <occupied|suicide|ko>
                                    move <index> is illegal (occupied point, suicide, or an
                                    immediate recapture of a basic ko); the record stops there
    E                               end of record
    X <path> <message>              sgfmill could not read the record

Points are SGF coordinates (column letter then row letter, "aa" = top-left).
"""
import sys

try:
    from sgfmill import sgf, sgf_moves
except ImportError:  # pragma: no cover - reported by the Rust test
    sys.stderr.write("sgfmill is not installed: run `pip install sgfmill`\n")
    sys.exit(3)


def board_text(board, size):
    rows = []
    for y in range(size):
        row = size - 1 - y  # sgfmill's row 0 is the bottom line
        for x in range(size):
            c = board.get(row, x)
            rows.append("X" if c == "b" else "O" if c == "w" else ".")
    return "".join(rows)


def sgf_point(row, col, size):
    return chr(ord("a") + col) + chr(ord("a") + size - 1 - row)


def check(path, out):
    try:
        with open(path, "rb") as f:
            game = sgf.Sgf_game.from_bytes(f.read())
        size = game.get_size()
        board, plays = sgf_moves.get_setup_and_moves(game)
    except Exception as e:  # noqa: BLE001 - any failure is reported, not raised
        out.write("X %s %s\n" % (path, str(e).replace("\n", " ")))
        return
    out.write("R %s %d\n" % (path, size))
    out.write("S %s\n" % board_text(board, size))
    ko = None  # (point forbidden, colour it is forbidden to)
    for index, (colour, move) in enumerate(plays):
        letter = colour.upper()
        if move is None:
            ko = None
            out.write("M %d %s pass %s\n" % (index, letter, board_text(board, size)))
            continue
        row, col = move
        pt = sgf_point(row, col, size)
        if ko is not None and ko == (move, colour):
            out.write("I %d %s %s ko\n" % (index, letter, pt))
            break
        try:
            forbidden = board.play(row, col, colour)
        except ValueError:
            out.write("I %d %s %s occupied\n" % (index, letter, pt))
            break
        if board.get(row, col) is None:
            out.write("I %d %s %s suicide\n" % (index, letter, pt))
            break
        other = "w" if colour == "b" else "b"
        ko = (forbidden, other) if forbidden is not None else None
        out.write("M %d %s %s %s\n" % (index, letter, pt, board_text(board, size)))
    out.write("E\n")


def main():
    out = sys.stdout
    for path in sys.argv[1:]:
        check(path, out)
    out.flush()


if __name__ == "__main__":
    main()
