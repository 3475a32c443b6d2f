"""Writes the C++ consumer the documentation shows into a directory.

docs/using-from-mlir.md ("Using ocannl from your MLIR compiler", linked from
the README) marks each file of its example with `<!-- consumer: NAME -->`
before a fenced code block; check.sh builds what this writes, so the
instructions stay true.
Usage: readme_consumer.py docs/using-from-mlir.md OUT_DIR
"""
import pathlib
import re
import sys


def main() -> int:
    readme, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    text = readme.read_text()
    blocks = re.findall(r"<!-- consumer: ([\w.-]+) -->\s*```[\w+]*\n(.*?)```", text, re.S)
    names = [name for name, _ in blocks]
    if "CMakeLists.txt" not in names or not any(n.endswith(".cpp") for n in names):
        print(f"readme_consumer: {readme} has no marked CMakeLists.txt and .cpp blocks", file=sys.stderr)
        return 1
    out.mkdir(parents=True, exist_ok=True)
    for name, body in blocks:
        (out / name).write_text(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
